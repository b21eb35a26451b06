import { expect, it } from 'vitest';
import { owner } from '../helpers/lock-env.js';
import { describeWithPeer, runPeer, startPeer } from '../helpers/redisson-peer.js';
import { jsonOf, LONG_LEASE_MS, useInteropServer } from './redisson-java-setup.js';

// The real Redisson 3.52.0 RReadWriteLock (`getReadWriteLock(name).readLock()/.writeLock()`)
// against our `read` and `write` kinds on one hash. Readers of both sides share it; each reader
// has its own `rwlock_timeout` keys, from which the other side's unlock recomputes the hash TTL;
// waiters listen on `redisson_rwlock:<braced name>` (a read unlock publishes 0, a write unlock 1).

const LONG = `${LONG_LEASE_MS}ms`;

describeWithPeer('Redisson (Java) RReadWriteLock and our read/write locks', () => {
  const s = useInteropServer();
  const ourRead = (name: string, lease: string, n = 1) => s.cli('acquire', name, '--kind', 'read', '--lease', lease, '--owner', owner(n));

  it('its reader: our writer is refused naming it; our reader shares; when it leaves, the TTL shrinks to ours', async () => {
    const name = 'rw'; // timeout keys `{rw}:<holder>:rwlock_timeout:<n>`: Redisson's unlock looks ours up by name
    const peer = startPeer(s.server.port, ['hold', 'read', name, String(LONG_LEASE_MS)], { watchdogMs: LONG_LEASE_MS });
    const reader = await peer.waitFor('acquired');
    const refused = await s.cli('acquire', name, '--kind', 'write', '--json');
    expect(refused.code).toBe(5);
    expect(jsonOf(refused)).toMatchObject({ acquired: false, holders: [{ owner: reader.token }] });

    expect((await ourRead(name, '10s')).code).toBe(0);
    const [view] = jsonOf<Record<string, unknown>[]>(await s.cli('inspect', name, '--json'));
    expect(view).toMatchObject({ kind: 'rw', mode: 'read' });
    const readers = (view!.readers as { owner: string; count: number; timeoutKeys: { key: string }[] }[])
      .map((r) => ({ owner: r.owner, count: r.count, keys: r.timeoutKeys.map((k) => k.key) }))
      .sort((a, b) => a.owner.localeCompare(b.owner));
    expect(readers).toEqual(
      [reader.token, owner(1)]
        .map((o) => ({ owner: o, count: 1, keys: [`{rw}:${o}:rwlock_timeout:1`] }))
        .sort((a, b) => a.owner.localeCompare(b.owner)),
    );
    expect(await s.raw.pttl(name)).toBeGreaterThan(30_000); // its 60 s watchdog lease

    await peer.stop(); // its read unlock recomputes the TTL from our timeout key
    expect(await peer.waitFor('released')).toMatchObject({ ok: true });
    expect(await s.raw.hgetall(name)).toEqual({ mode: 'read', [owner(1)]: '1' });
    const ttl = await s.raw.pttl(name);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('our reader: its writer is refused; its reader shares; when ours leaves, the TTL shrinks to its', async () => {
    const name = 'a:{b}:c'; // its own hash tag: timeout keys `a:{b}:c:<holder>:rwlock_timeout:<n>`
    expect((await ourRead(name, LONG)).code).toBe(0);
    const writer = await runPeer(s.server.port, ['trylock', 'write', name, '0', '5000']);
    expect(writer.code).toBe(1);
    expect(writer.events.at(-1)).toMatchObject({ event: 'failed', reason: 'busy' });

    // Its reader with a fixed 8 s lease, held longer than that.
    const peer = startPeer(s.server.port, ['trylock', 'read', name, '0', '8000', '--hold', String(LONG_LEASE_MS)]);
    const reader = await peer.waitFor('acquired');
    expect(await s.raw.hgetall(name)).toEqual({ mode: 'read', [owner(1)]: '1', [reader.token]: '1' });
    expect(await s.raw.pttl(`${name}:${reader.token}:rwlock_timeout:1`)).toBeLessThanOrEqual(8000);
    expect(await s.raw.pttl(name)).toBeGreaterThan(30_000); // ours, 60 s

    expect((await s.cli('release', name, '--kind', 'read', '--owner', owner(1))).code).toBe(0);
    expect(await s.raw.hgetall(name)).toEqual({ mode: 'read', [reader.token]: '1' });
    const ttl = await s.raw.pttl(name);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(8000);
  });

  it('its writer: our reader and writer are refused naming it; our writer: its reader and writer are refused', async () => {
    const peer = startPeer(s.server.port, ['hold', 'write', 'rw', String(LONG_LEASE_MS)], { watchdogMs: 20_000 });
    const writer = await peer.waitFor('acquired');
    for (const kind of ['read', 'write']) {
      const refused = await s.cli('acquire', 'rw', '--kind', kind, '--json');
      expect(refused.code).toBe(5);
      expect(jsonOf(refused)).toMatchObject({ acquired: false, holders: [{ owner: `${writer.token}:write` }] });
    }
    const [view] = jsonOf<Record<string, unknown>[]>(await s.cli('inspect', 'rw', '--json'));
    expect(view).toMatchObject({ kind: 'rw', mode: 'write', holders: [{ client: writer.clientId, thread: '1', count: 1, write: true }] });
    expect(view!.ttlMs).toBeGreaterThan(10_000);
    expect(view!.ttlMs).toBeLessThanOrEqual(20_000);
    await peer.stop();

    expect((await s.cli('acquire', 'rw', '--kind', 'write', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    for (const kind of ['read', 'write']) {
      const tried = await runPeer(s.server.port, ['trylock', kind, 'rw', '0', '5000']);
      expect(tried.code).toBe(1);
    }
    expect(await s.raw.hgetall('rw')).toEqual({ mode: 'write', [`${owner(1)}:write`]: '1' });
  });

  it('its writer waits: our read release wakes it at once (message 0)', async () => {
    expect((await ourRead('rw', LONG)).code).toBe(0);
    await s.peerWokenBy('write', 'rw', () => s.subscribed('redisson_rwlock:{rw}'), async () => {
      expect((await s.cli('release', 'rw', '--kind', 'read', '--owner', owner(1))).code).toBe(0);
    });
  });

  it('its reader waits: our write release wakes it at once (message 1)', async () => {
    expect((await s.cli('acquire', 'rw', '--kind', 'write', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    await s.peerWokenBy('read', 'rw', () => s.subscribed('redisson_rwlock:{rw}'), async () => {
      expect((await s.cli('release', 'rw', '--kind', 'write', '--owner', owner(1))).code).toBe(0);
    });
  });

  it('its reader waits: our force-unlock --yes of the write lock wakes it at once', async () => {
    expect((await s.cli('acquire', 'rw', '--kind', 'write', '--lease', LONG, '--owner', owner(1))).code).toBe(0);
    await s.peerWokenBy('read', 'rw', () => s.subscribed('redisson_rwlock:{rw}'), async () => {
      expect((await s.cli('force-unlock', 'rw', '--kind', 'write', '--yes')).code).toBe(0);
    });
  });

  it('its writer waits: the end of our read hold (Ctrl-C) wakes it at once', async () => {
    const hold = s.hold('rw', '--kind', 'read', '--watchdog', LONG, '--owner', owner(1));
    await hold.waitFor('acquired');
    await s.peerWokenBy('write', 'rw', () => s.subscribed('redisson_rwlock:{rw}'), async () => {
      hold.abort();
      expect((await hold.done).code).toBe(130);
    });
  });

  it('we wait: its write unlock wakes our reader, and its read unlock our writer, at once', async () => {
    const name = '{x}:rw'; // a hash tag at the start: channel `redisson_rwlock:{x}:rw`
    const listening = () => s.subscribed('redisson_rwlock:{x}:rw');
    const ours = (kind: string, n: number) => ['acquire', name, '--kind', kind, '--wait', '30s', '--lease', LONG, '--owner', owner(n)];
    await s.ourWaiterWokenBy('write', name, listening, ours('read', 1));
    expect((await s.cli('release', name, '--kind', 'read', '--owner', owner(1))).code).toBe(0);
    await s.ourWaiterWokenBy('read', name, listening, ours('write', 2));
    expect(await s.raw.hgetall(name)).toEqual({ mode: 'write', [`${owner(2)}:write`]: '1' });
  });

  it('its read watchdog keeps our writer out past its lease', async () => {
    const peer = startPeer(s.server.port, ['hold', 'read', 'rw', String(LONG_LEASE_MS)], { watchdogMs: 1500 });
    const reader = await peer.waitFor('acquired');
    expect((await s.cli('acquire', 'rw', '--kind', 'write', '--wait', '4s')).code).toBe(5);
    expect(await s.raw.hget('rw', reader.token)).toBe('1');
    expect(await s.raw.pttl(`{rw}:${reader.token}:rwlock_timeout:1`)).toBeGreaterThan(0);
  });

  it('our read watchdog keeps its writer out past our lease', async () => {
    const hold = s.hold('rw', '--kind', 'read', '--watchdog', '1500ms', '--owner', owner(1));
    await hold.waitFor('acquired');
    const tried = await runPeer(s.server.port, ['trylock', 'write', 'rw', '4000', '5000']);
    expect(tried.code).toBe(1);
    expect(await s.raw.hget('rw', owner(1))).toBe('1');
    expect(await s.raw.pttl(`{rw}:${owner(1)}:rwlock_timeout:1`)).toBeGreaterThan(0);
    hold.abort();
    expect((await hold.done).code).toBe(130);
  });
});
