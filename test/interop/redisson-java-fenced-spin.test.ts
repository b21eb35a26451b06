import { expect, it } from 'vitest';
import { owner } from '../helpers/lock-env.js';
import { eventually } from '../helpers/sandbox.js';
import { describeWithPeer, runPeer, startPeer } from '../helpers/redisson-peer.js';
import { jsonOf, LONG_LEASE_MS, useInteropServer } from './redisson-java-setup.js';

// The real Redisson 3.52.0 RFencedLock and RSpinLock against our `fenced` and `spin` kinds.
// Fenced: one counter `redisson_lock_token:<braced name>` for both sides, RLock's channel.
// Spin: no messages at all; both sides poll, so a release is found by the other's next retry.

const LONG = `${LONG_LEASE_MS}ms`;

describeWithPeer('Redisson (Java) RFencedLock and our fenced lock', () => {
  const s = useInteropServer();
  const name = '{f}:fenced'; // a hash tag at the start: counter `redisson_lock_token:{f}:fenced`
  const ourAcquire = async (n: number) => jsonOf<{ acquired: boolean; token?: number; holders?: { owner: string }[] }>(
    await s.cli('acquire', name, '--kind', 'fenced', '--lease', LONG, '--owner', owner(n), '--json'),
  );

  it('one token sequence across both sides; each holder refuses the other', async () => {
    const peer = startPeer(s.server.port, ['hold', 'fenced', name, String(LONG_LEASE_MS)]);
    const first = await peer.waitFor('acquired');
    expect(first.fencingToken).toBe(1);
    expect(await ourAcquire(1)).toMatchObject({ acquired: false, holders: [{ owner: first.token }] });
    const [view] = jsonOf<Record<string, unknown>[]>(await s.cli('inspect', name, '--json'));
    expect(view).toMatchObject({ kind: 'fenced', token: 1, holders: [{ owner: first.token, count: 1 }] });
    await peer.stop();

    expect(await ourAcquire(1)).toMatchObject({ acquired: true, token: 2 });
    const refused = await runPeer(s.server.port, ['trylock', 'fenced', name, '0', '5000']);
    expect(refused.code).toBe(1);
    expect((await s.cli('release', name, '--kind', 'fenced', '--owner', owner(1))).code).toBe(0);

    const third = await runPeer(s.server.port, ['trylock', 'fenced', name, '0', '5000']);
    expect(third.events.find((e) => e.event === 'acquired')).toMatchObject({ fencingToken: 3 });
    expect(await ourAcquire(2)).toMatchObject({ acquired: true, token: 4 });
    expect(await s.raw.get(`redisson_lock_token:${name}`)).toBe('4');
  });

  it('it waits: our release wakes it at once; we wait: its unlock wakes ours', async () => {
    const listening = () => s.subscribed(`redisson_lock__channel:${name}`);
    expect(await ourAcquire(1)).toMatchObject({ acquired: true, token: 1 });
    await s.peerWokenBy('fenced', name, listening, async () => {
      expect((await s.cli('release', name, '--kind', 'fenced', '--owner', owner(1))).code).toBe(0);
    }); // it took token 2
    const ours = await s.ourWaiterWokenBy('fenced', name, listening, [
      'acquire', name, '--kind', 'fenced', '--wait', '30s', '--owner', owner(2), '--json',
    ]); // it took token 3 before it released to us
    expect(jsonOf(ours)).toMatchObject({ acquired: true, token: 4 });
  });
});

describeWithPeer('Redisson (Java) RSpinLock and our spin lock', () => {
  const s = useInteropServer();

  it('it holds: we are refused naming it; we hold: its tryLock is refused', async () => {
    const peer = startPeer(s.server.port, ['hold', 'spin', 'spin', String(LONG_LEASE_MS)], { watchdogMs: 20_000 });
    const held = await peer.waitFor('acquired');
    const refused = await s.cli('acquire', 'spin', '--kind', 'spin', '--json');
    expect(refused.code).toBe(5);
    expect(jsonOf(refused)).toMatchObject({ acquired: false, holders: [{ owner: held.token, count: 1 }] });
    // A spin lock's hash is an RLock's: inspect cannot tell them apart and says reentrant.
    const [view] = jsonOf<Record<string, unknown>[]>(await s.cli('inspect', 'spin', '--json'));
    expect(view).toMatchObject({ kind: 'reentrant', holders: [{ owner: held.token, client: held.clientId, count: 1 }] });
    expect(view!.ttlMs).toBeLessThanOrEqual(20_000);
    await peer.stop();
    expect(await s.raw.exists('spin')).toBe(0);

    expect((await s.cli('acquire', 'spin', '--kind', 'spin', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    const tried = await runPeer(s.server.port, ['trylock', 'spin', 'spin', '500', '5000']);
    expect(tried.code).toBe(1);
    expect(await s.raw.hgetall('spin')).toEqual({ [owner(1)]: '1' });
  });

  it('it polls: it takes the lock soon after our release; we poll: we take it soon after its unlock', async () => {
    expect((await s.cli('acquire', 'spin', '--kind', 'spin', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    // No channel to watch: once its JVM has connected, it tries and then polls.
    const before = await s.clients();
    const connected = () => eventually(async () => (await s.clients()) > before, 15_000);
    await s.peerWokenBy('spin', 'spin', connected, async () => {
      expect((await s.cli('release', 'spin', '--kind', 'spin', '--owner', owner(1))).code).toBe(0);
    });
    // Nor for ours: it polls from the start.
    await s.ourWaiterWokenBy('spin', 'spin', async () => {}, ['acquire', 'spin', '--kind', 'spin', '--wait', '30s', '--owner', owner(2)]);
    expect(await s.raw.hgetall('spin')).toEqual({ [owner(2)]: '1' });
  });
});
