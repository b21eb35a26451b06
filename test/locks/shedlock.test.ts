import { describe, expect, it } from 'vitest';
import { newOwner } from '../../src/locks/owners.js';
import { shedLock } from '../../src/locks/shedlock.js';
import { useLockServer } from '../helpers/fixture.js';
import { expectLeaseSince, serverNow } from '../helpers/server-clock.js';

// ShedLock's Redis providers (docs/lock-formats.md): `job-lock:<env>:<name>` =
// `ADDED:<instant>@<host>:<uuid>` with PX lockAtMostFor; a run that finds the key is skipped
// (InternalRedisLockProvider.java, shedlock-parent-7.9.0). ShedLock's own lock() is a plain
// `SET key value NX PX`: the test sends exactly that as the other host.

const fx = useLockServer();
const KEY = 'job-lock:default:nightly';
const theirs = 'ADDED:2026-11-28T02:00:00.000Z@worker-9:6fa459ea-ee8a-4ca4-894e-db77e160355e';
const req = (owner: string, leaseMs = 60_000) => ({ key: KEY, owner, leaseMs });
/** ShedLock's lock() from another host: true when its run may go ahead. */
const theirRun = async () => (await fx.raw.set(KEY, theirs, 'PX', 600_000, 'NX')) === 'OK';

describe('shedlock (ShedLock Redis providers)', () => {
  it("writes ShedLock's value: the time, this host and a unique id, with PX", async () => {
    const owner = newOwner(shedLock);
    expect(owner).toMatch(/^ADDED:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z@[^:]+:[0-9a-f-]{36}$/);
    const since = await serverNow(fx.raw);
    expect(await shedLock.tryAcquire(fx.env, req(owner, 5000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.get(KEY)).toBe(owner);
    await expectLeaseSince(fx.raw, KEY, 5000, since);
  });

  it("while we hold it ShedLock's run is skipped; once we release, its next run takes it", async () => {
    const owner = newOwner(shedLock);
    await shedLock.tryAcquire(fx.env, req(owner));
    expect(await theirRun()).toBe(false);
    expect(await shedLock.release(fx.env, req(theirs))).toBe('not-owner');
    expect(await fx.raw.get(KEY)).toBe(owner);
    expect(await shedLock.release(fx.env, req(owner))).toBe('released');
    expect(await theirRun()).toBe(true);
  });

  it('we are refused while their run holds it, even with our own value (ShedLock never re-enters), and renew only our own', async () => {
    expect(await theirRun()).toBe(true);
    const attempt = await shedLock.tryAcquire(fx.env, req(newOwner(shedLock)));
    expect(attempt).toMatchObject({ acquired: false, holders: [{ owner: theirs, count: 1 }] });
    expect((await shedLock.tryAcquire(fx.env, req(theirs))).acquired).toBe(false);
    expect(await shedLock.renew(fx.env, req(newOwner(shedLock)))).toBe(false);
    expect(await fx.raw.get(KEY)).toBe(theirs);
  });

  it('force-unlock deletes whoever holds it, and the next run of the job takes it', async () => {
    expect(await theirRun()).toBe(true);
    expect(await shedLock.forceUnlock(fx.env, KEY)).toBe(true);
    expect(await fx.raw.exists(KEY)).toBe(0);
    expect(await theirRun()).toBe(true);
  });
});
