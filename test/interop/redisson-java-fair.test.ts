import { expect, it } from 'vitest';
import { owner } from '../helpers/lock-env.js';
import { describeWithPeer, runPeer, startPeer, type RedissonPeer } from '../helpers/redisson-peer.js';
import { expectPromptAfter, jsonOf, LONG_LEASE_MS, settle, useInteropServer } from './redisson-java-setup.js';

// The real Redisson 3.52.0 RFairLock (`getFairLock`) against our `fair` kind: one queue, two
// clients. Each waiter listens on its own channel `redisson_lock__channel:<braced name>:<holder>`,
// so a release that published anywhere else would leave the next waiter asleep for its whole
// estimated wait (a minute or more here).

const LONG = `${LONG_LEASE_MS}ms`;
const fairKeys = (braced: string) => ({
  queue: `redisson_lock_queue:${braced}`,
  timeouts: `redisson_lock_timeout:${braced}`,
  channels: `redisson_lock__channel:${braced}:*`,
});

describeWithPeer('Redisson (Java) RFairLock and our fair lock', () => {
  const s = useInteropServer();
  const waitFair = (name: string, n: number) => ['acquire', name, '--kind', 'fair', '--wait', '30s', '--lease', LONG, '--owner', owner(n)];
  /** Waits until `n` waiters are queued and listening, then a moment for the last one to block. */
  const waiters = async (keys: ReturnType<typeof fairKeys>, n: number) => {
    await s.queued(keys.queue, n);
    await s.channels(keys.channels, n);
    await settle();
  };

  it('it holds: we are refused and name its holder; inspect shows its hash and our waiter in its queue', async () => {
    const keys = fairKeys('{q}');
    const peer = startPeer(s.server.port, ['hold', 'fair', 'q', String(LONG_LEASE_MS)], { watchdogMs: 20_000 });
    const held = await peer.waitFor('acquired');
    const refused = await s.cli('acquire', 'q', '--kind', 'fair', '--json');
    expect(refused.code).toBe(5);
    expect(jsonOf(refused)).toMatchObject({ acquired: false, holders: [{ owner: held.token, count: 1 }] });
    const waiter = s.background(...waitFair('q', 1));
    await waiters(keys, 1);
    const [view] = jsonOf<Record<string, unknown>[]>(await s.cli('inspect', 'q', '--json'));
    expect(view).toMatchObject({
      kind: 'fair',
      holders: [{ owner: held.token, client: held.clientId, thread: '1', count: 1 }],
      queue: [{ owner: owner(1), position: 0, subscribers: 1 }],
    });
    expect(view!.ttlMs).toBeGreaterThan(10_000);
    expect(view!.ttlMs).toBeLessThanOrEqual(20_000);
    waiter.abort();
    expect((await waiter.done).code).toBe(130);
    expect(await s.raw.llen(keys.queue)).toBe(0);
  });

  it('we hold: its tryLock is refused without queuing', async () => {
    expect((await s.cli('acquire', 'q', '--kind', 'fair', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    const tried = await runPeer(s.server.port, ['trylock', 'fair', 'q', '0', '5000']);
    expect(tried.code).toBe(1);
    expect(tried.events.at(-1)).toMatchObject({ event: 'failed', reason: 'busy' });
    expect(await s.raw.hgetall('q')).toEqual({ [owner(1)]: '1' });
    expect(await s.raw.exists('redisson_lock_queue:{q}', 'redisson_lock_timeout:{q}')).toBe(0);
  });

  it('FIFO, ours first: our hold, its waiter, ours, its; each release wakes the next at once', async () => {
    const keys = fairKeys('{x}:y'); // a name that brings its own hash tag
    const hold = s.hold('{x}:y', '--kind', 'fair', '--watchdog', LONG, '--owner', owner(0));
    await hold.waitFor('acquired');
    const first = startPeer(s.server.port, ['hold', 'fair', '{x}:y', '300']);
    await waiters(keys, 1);
    const second = s.background(...waitFair('{x}:y', 2));
    await waiters(keys, 2);
    const third = startPeer(s.server.port, ['hold', 'fair', '{x}:y', '300']);
    await waiters(keys, 3);

    const endedAt = Date.now();
    hold.abort();
    expect((await hold.done).code).toBe(130);
    const firstIn = await first.waitFor('acquired');
    expectPromptAfter(firstIn, endedAt);
    const firstOut = await first.waitFor('released');
    expect((await second.done).code).toBe(0);
    expectPromptAfter(Date.now(), firstOut.t);
    expect(await s.raw.hgetall('{x}:y')).toEqual({ [owner(2)]: '1' });
    expect(third.events).toEqual([]); // still waiting behind us

    const releasedAt = Date.now();
    expect((await s.cli('release', '{x}:y', '--kind', 'fair', '--owner', owner(2))).code).toBe(0);
    expectPromptAfter(await third.waitFor('acquired'), releasedAt);
    expect(await third.exited).toBe(0);
    expect(await s.raw.exists('{x}:y', keys.queue, keys.timeouts)).toBe(0);
  });

  it('FIFO, its first: its hold, our waiter, its, ours; each release wakes the next at once', async () => {
    const keys = fairKeys('a:{b}:c');
    const holder = startPeer(s.server.port, ['hold', 'fair', 'a:{b}:c', String(LONG_LEASE_MS)], { watchdogMs: LONG_LEASE_MS });
    await holder.waitFor('acquired');
    const first = s.background(...waitFair('a:{b}:c', 1));
    await waiters(keys, 1);
    const second = startPeer(s.server.port, ['hold', 'fair', 'a:{b}:c', '300']);
    await waiters(keys, 2);
    const third = s.background(...waitFair('a:{b}:c', 3));
    await waiters(keys, 3);

    await holder.stop();
    expect((await first.done).code).toBe(0);
    expectPromptAfter(Date.now(), (await holder.waitFor('released')).t);
    const releasedAt = Date.now();
    expect((await s.cli('release', 'a:{b}:c', '--kind', 'fair', '--owner', owner(1))).code).toBe(0);
    expectPromptAfter(await second.waitFor('acquired'), releasedAt);
    const secondOut = await second.waitFor('released');
    expect((await third.done).code).toBe(0);
    expectPromptAfter(Date.now(), secondOut.t);
    expect(await s.raw.hgetall('a:{b}:c')).toEqual({ [owner(3)]: '1' });
    expect(await s.raw.exists(keys.queue, keys.timeouts)).toBe(0);
  });

  it('it waits: our force-unlock --yes wakes the head of the queue at once', async () => {
    const keys = fairKeys('{q}');
    expect((await s.cli('acquire', 'q', '--kind', 'fair', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    await s.peerWokenBy('fair', 'q', () => waiters(keys, 1), async () => {
      expect((await s.cli('force-unlock', 'q', '--kind', 'fair', '--yes')).code).toBe(0);
    });
  });

  /** The deadline of the one queued member that is not `ours`. */
  const peerScore = async (keys: ReturnType<typeof fairKeys>, ours: string) => {
    const members = await s.raw.zrange(keys.timeouts, 0, -1, 'WITHSCORES');
    const at = members.findIndex((m, i) => i % 2 === 0 && m !== ours);
    return { member: members[at]!, score: Number(members[at + 1]) };
  };

  it('our waiter that gives up leaves the queue as acquireFailed does: its waiter behind moves up by our wait', async () => {
    const keys = fairKeys('{q}');
    expect((await s.cli('acquire', 'q', '--kind', 'fair', '--lease', LONG, '--owner', owner(0))).code).toBe(0);
    const ours = s.background(...waitFair('q', 1)); // allowance 30 s, as tryLock(30 s) queues
    await waiters(keys, 1);
    const behind = startPeer(s.server.port, ['hold', 'fair', 'q', '200']);
    await waiters(keys, 2);
    const before = await peerScore(keys, owner(1));
    ours.abort(); // Ctrl-C: gives up the way a wait that ran out does
    expect((await ours.done).code).toBe(130);
    expect(await s.raw.lrange(keys.queue, 0, -1)).toEqual([before.member]);
    expect(await peerScore(keys, owner(1))).toEqual({ member: before.member, score: before.score - 30_000 });
    // It is the head now, so our release wakes it on its own channel.
    const releasedAt = Date.now();
    expect((await s.cli('release', 'q', '--kind', 'fair', '--owner', owner(0))).code).toBe(0);
    expectPromptAfter(await behind.waitFor('acquired'), releasedAt);
    expect(await behind.exited).toBe(0);
  });

  it('its waiter that gives up (tryLock wait over) leaves the queue and moves ours up by its wait', async () => {
    const keys = fairKeys('{q}');
    expect((await s.cli('acquire', 'q', '--kind', 'fair', '--lease', LONG, '--owner', owner(0))).code).toBe(0);
    const theirs: RedissonPeer = startPeer(s.server.port, ['trylock', 'fair', 'q', '4000', '5000']);
    await waiters(keys, 1);
    const ours = s.background(...waitFair('q', 2));
    await waiters(keys, 2);
    const before = Number(await s.raw.zscore(keys.timeouts, owner(2)));
    expect(await theirs.exited).toBe(1); // busy after its 4 s
    expect(await s.raw.lrange(keys.queue, 0, -1)).toEqual([owner(2)]);
    expect(Number(await s.raw.zscore(keys.timeouts, owner(2)))).toBe(before - 4000);
    const releasedAt = Date.now();
    expect((await s.cli('release', 'q', '--kind', 'fair', '--owner', owner(0))).code).toBe(0);
    expect((await ours.done).code).toBe(0);
    expectPromptAfter(Date.now(), releasedAt);
  });
});
