import { afterEach, describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { newOwner } from '../../src/locks/owners.js';
import { redisPyLock } from '../../src/locks/redis-py.js';
import { tokenLock } from '../../src/locks/token.js';
import { useLockServer } from '../helpers/fixture.js';
import { redisPyMissing, startPyPeer, stopPyPeers } from '../helpers/redis-py-peer.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// The real redis-py Lock (Debian's python3-redis) contending with our --kind redis-py and --kind
// token on one server: each refuses the other while held, each one's release lets the other in,
// and inspect names redis-py for its locks and for ours under --kind redis-py.

if (redisPyMissing !== undefined && process.env.CI === 'true') throw new Error(redisPyMissing);

const fx = useLockServer();
afterEach(stopPyPeers);
const peer = (...args: string[]) => startPyPeer(fx.server.port, 'orders', ...args);
const req = (owner = newOwner(redisPyLock), leaseMs = 30_000) => ({ key: 'orders', owner, leaseMs });

describe.skipIf(redisPyMissing !== undefined)('interop with redis-py (python3-redis)', () => {
  it('it holds: we are refused and name its token; inspect names redis-py; our release and renew are refused', async () => {
    const its = peer('hold', '30', '0');
    const held = await its.next();
    expect(held.event).toBe('acquired');
    const attempt = await redisPyLock.tryAcquire(fx.env, req());
    expect(attempt).toMatchObject({ acquired: false, holders: [{ owner: held.token, count: 1 }] });
    expect(await tokenLock.release(fx.env, req())).toBe('not-owner');
    expect(await tokenLock.renew(fx.env, req())).toBe(false);
    const r = await runCli(['inspect', 'orders', '--json'], tempStateEnv({ REDIS_URL: fx.server.url }));
    expect(JSON.parse(r.stdout) as LockView[]).toMatchObject([
      { kind: 'token', library: 'redis-py', value: held.token, warnings: [] },
    ]);
    its.release();
    expect((await its.next()).event).toBe('released');
  });

  it('we hold: inspect names redis-py; its acquire, and its release and extend with another token, are refused; with ours they act', async () => {
    const ours = req();
    expect((await redisPyLock.tryAcquire(fx.env, ours)).acquired).toBe(true);
    const r = await runCli(['inspect', 'orders', '--json'], tempStateEnv({ REDIS_URL: fx.server.url }));
    expect((JSON.parse(r.stdout) as LockView[])[0]).toMatchObject({ library: 'redis-py', value: ours.owner });
    expect((await peer('hold', '30', '0.3').next()).event).toBe('refused');
    expect((await peer('release', newOwner(redisPyLock)).next()).event).toBe('not-owned');
    expect((await peer('extend', newOwner(redisPyLock), '60').next()).event).toBe('not-owned');
    expect(await fx.raw.get('orders')).toBe(ours.owner);
    // Same layout: given our token, its extend and release act on our lock.
    expect((await peer('extend', ours.owner, '60').next()).event).toBe('extended');
    expect(await fx.raw.pttl('orders')).toBeGreaterThan(60_000);
    expect((await peer('release', ours.owner).next()).event).toBe('released');
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('our release lets its blocking acquire in', async () => {
    const ours = req();
    await redisPyLock.tryAcquire(fx.env, ours);
    const its = peer('hold', '30', '20');
    // Its SET NX was refused (the server saw it) before we release: it is in its polling loop.
    await expect
      .poll(async () => /name=redis-py-peer .*cmd=set\b/.test((await fx.raw.client('LIST')) as string), {
        timeout: 15_000,
        interval: 50,
      })
      .toBe(true);
    expect(await redisPyLock.release(fx.env, ours)).toBe('released');
    const held = await its.next();
    expect(held.event).toBe('acquired');
    expect(await fx.raw.get('orders')).toBe(held.token);
    its.release();
    expect((await its.next()).event).toBe('released');
  });

  it('its release lets our waiting acquire in (--kind token and --kind redis-py)', async () => {
    for (const protocol of [tokenLock, redisPyLock]) {
      const its = peer('hold', '30', '0');
      expect((await its.next()).event).toBe('acquired');
      const ours = req(newOwner(protocol));
      const waiting = protocol.acquire(fx.env, ours, { waitMs: 15_000 });
      its.release();
      expect((await its.next()).event).toBe('released');
      expect((await waiting).acquired).toBe(true);
      expect(await fx.raw.get('orders')).toBe(ours.owner);
      expect(await protocol.release(fx.env, ours)).toBe('released');
    }
  });
});
