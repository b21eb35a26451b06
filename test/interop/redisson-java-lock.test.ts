import { expect, it } from 'vitest';
import { owner } from '../helpers/lock-env.js';
import { describeWithPeer, runPeer, startPeer } from '../helpers/redisson-peer.js';
import { jsonOf, LONG_LEASE_MS, useInteropServer } from './redisson-java-setup.js';

// The real Redisson 3.52.0 RLock (`getLock`) against our `reentrant` kind, both directions, on
// one redis-server. Channel names are written out as Redisson derives them (prefixName: braces
// added only when the name has none), not computed with our own code.

const LONG = `${LONG_LEASE_MS}ms`;

describeWithPeer('Redisson (Java) RLock and our reentrant lock', () => {
  const s = useInteropServer();

  it('it holds: we are refused and name its holder; inspect decodes its hash, count and lease', async () => {
    const peer = startPeer(s.server.port, ['hold', 'lock', 'orders', String(LONG_LEASE_MS)], { watchdogMs: 20_000 });
    const held = await peer.waitFor('acquired');
    const refused = await s.cli('acquire', 'orders', '--json');
    expect(refused.code).toBe(5);
    expect(jsonOf(refused)).toMatchObject({ acquired: false, holders: [{ owner: held.token, count: 1 }] });
    const [view] = jsonOf<Record<string, unknown>[]>(await s.cli('inspect', 'orders', '--json'));
    expect(view).toMatchObject({
      kind: 'reentrant',
      holders: [{ owner: held.token, client: held.clientId, thread: '1', count: 1 }],
      warnings: [],
    });
    // Its watchdog lease (20 s here), counting down or just renewed.
    expect(view!.ttlMs).toBeGreaterThan(10_000);
    expect(view!.ttlMs).toBeLessThanOrEqual(20_000);
    expect(await peer.stop()).toBe(143); // SIGTERM: Redisson unlocks in its shutdown hook first
    expect(await peer.waitFor('released')).toMatchObject({ ok: true, reason: 'signal' });
    expect(await s.raw.exists('orders')).toBe(0);
  });

  it('we hold: its tryLock is refused and our hash is untouched', async () => {
    expect((await s.cli('acquire', 'orders', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    const tried = await runPeer(s.server.port, ['trylock', 'lock', 'orders', '0', '5000']);
    expect(tried.code).toBe(1);
    expect(tried.events.at(-1)).toMatchObject({ event: 'failed', reason: 'busy' });
    expect(await s.raw.hgetall('orders')).toEqual({ [owner(1)]: '1' });
  });

  // The channel a waiter listens on depends on the name's braces: all three shapes.
  const names = [
    ['orders', 'redisson_lock__channel:{orders}'],
    ['a:{b}:c', 'redisson_lock__channel:a:{b}:c'],
    ['{x}:y', 'redisson_lock__channel:{x}:y'],
  ] as const;
  for (const [name, channel] of names) {
    it(`it waits on ${channel}: our release wakes it at once`, async () => {
      expect((await s.cli('acquire', name, '--lease', LONG, '--owner', owner(1))).code).toBe(0);
      await s.peerWokenBy('lock', name, () => s.subscribed(channel), async () => {
        expect((await s.cli('release', name, '--owner', owner(1))).code).toBe(0);
      });
      expect(await s.raw.exists(name)).toBe(0);
    });
  }

  it('it waits: our force-unlock --yes wakes it at once', async () => {
    expect((await s.cli('acquire', 'orders', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    await s.peerWokenBy('lock', 'orders', () => s.subscribed('redisson_lock__channel:{orders}'), async () => {
      expect((await s.cli('force-unlock', 'orders', '--yes')).code).toBe(0);
    });
  });

  it('it waits: the end of our hold (Ctrl-C) wakes it at once', async () => {
    const hold = s.hold('orders', '--watchdog', LONG, '--owner', owner(1));
    await hold.waitFor('acquired');
    await s.peerWokenBy('lock', 'orders', () => s.subscribed('redisson_lock__channel:{orders}'), async () => {
      hold.abort();
      expect((await hold.done).code).toBe(130);
    });
  });

  it('we wait: its unlock wakes our acquire --wait at once', async () => {
    await s.ourWaiterWokenBy('lock', 'orders', () => s.subscribed('redisson_lock__channel:{orders}'), [
      'acquire', 'orders', '--wait', '30s', '--owner', owner(2),
    ]);
    expect(await s.raw.hgetall('orders')).toEqual({ [owner(2)]: '1' });
  });

  it('its watchdog keeps us out past its lease', async () => {
    const peer = startPeer(s.server.port, ['hold', 'lock', 'orders', String(LONG_LEASE_MS)], { watchdogMs: 1500 });
    const held = await peer.waitFor('acquired');
    // 4 s of retries: well past its 1.5 s lease, which only its renewals keep alive.
    const refused = await s.cli('acquire', 'orders', '--wait', '4s');
    expect(refused.code).toBe(5);
    expect(await s.raw.hget('orders', held.token)).toBe('1');
    expect(await s.raw.pttl('orders')).toBeGreaterThan(0);
  });

  it('our watchdog keeps it out past our lease', async () => {
    const hold = s.hold('orders', '--watchdog', '1500ms', '--owner', owner(1));
    await hold.waitFor('acquired');
    const tried = await runPeer(s.server.port, ['trylock', 'lock', 'orders', '4000', '5000']);
    expect(tried.code).toBe(1);
    expect(tried.events.at(-1)).toMatchObject({ event: 'failed', reason: 'busy' });
    expect(await s.raw.hget('orders', owner(1))).toBe('1');
    hold.abort();
    expect((await hold.done).code).toBe(130);
  });
});
