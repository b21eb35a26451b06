import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import type { LockView } from '../../src/core/lock-view.js';
import { bsmObtain, bsmObtainOnce, bsmToken } from '../helpers/bsm-redislock-peer.js';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// bsm/redislock's keys as v0.10.0 writes them: inspect shows its token and metadata, ls shows an
// ObtainMulti lock as one lock over its keys, doctor finds nothing wrong with a held one, and
// force-unlock lets its retrying waiter in (its release wakes nobody: its waiters poll).

const fx = useRedisServer({ flushEachTest: true });
const cli = (argv: readonly string[]) => runCli(argv, tempStateEnv({ REDIS_URL: fx.server.url }));
const TOKEN = 'q83vEjRWeJq83vEjRW-_qw';
let peer: Redis;
beforeEach(() => {
  peer = rawClient(fx.server);
});
afterEach(() => peer.disconnect());

describe('bsm/redislock in inspect, ls and doctor', () => {
  it('inspect: one block per ObtainMulti lock, with its token, metadata and keys', async () => {
    expect(await bsmObtainOnce(peer, ['jobs:lock:a', 'jobs:lock:b'], `${TOKEN}host-7`, 60_000)).toBe(true);
    const r = await cli(['inspect', 'jobs:lock:a', 'jobs:lock:b']);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/expires in [\d.]+ s/, 'expires in N s')).toBe(
      'jobs:lock:a  token lock (bsm-redislock), expires in N s\n' +
        `  held by   ${TOKEN}host-7\n` +
        '  metadata  host-7\n' +
        '  keys      jobs:lock:a, jobs:lock:b (one lock, obtained together)\n',
    );
    const json = JSON.parse((await cli(['inspect', 'jobs:lock:b', '--json'])).stdout) as LockView[];
    expect(json).toMatchObject([
      { key: 'jobs:lock:b', kind: 'token', library: 'bsm-redislock', metadata: 'host-7', warnings: [] },
    ]);
  });

  it('ls: one row and one JSON line per ObtainMulti lock; doctor: no finding', async () => {
    await bsmObtainOnce(peer, ['jobs:lock:a', 'jobs:lock:b', 'jobs:lock:c'], `${TOKEN}host-7`, 60_000);
    await bsmObtainOnce(peer, ['orders'], bsmToken(), 60_000);
    const table = await cli(['ls']);
    expect(table.stdout).toMatch(/^jobs:lock:a, jobs:lock:b, jobs:lock:c +token +q83vEjRW… \(bsm-redislock\) /m);
    expect(table.stdout.split('\n').filter(Boolean)).toHaveLength(3); // header, the multi lock, orders
    const lines = JSON.parse((await cli(['ls', '--json'])).stdout) as LockView[];
    expect(lines.map((v) => [v.key, v.keys ?? null, v.library]).sort()).toEqual([
      ['jobs:lock:a', ['jobs:lock:a', 'jobs:lock:b', 'jobs:lock:c'], 'bsm-redislock'],
      ['orders', null, 'bsm-redislock'],
    ]);
    const doctor = await cli(['doctor', '--json']);
    expect([doctor.code, JSON.parse(doctor.stdout) as Finding[]]).toEqual([0, []]);
  });
});

describe('bsm/redislock through the lock commands', () => {
  it('acquire --kind bsm-redislock refuses its holder and names it; force-unlock lets its retrying obtain in', async () => {
    const theirs = `${bsmToken()}host-7`;
    await bsmObtainOnce(peer, ['jobs:lock:orders'], theirs, 60_000);
    const refused = await cli(['acquire', 'jobs:lock:orders', '--kind', 'bsm-redislock']);
    expect(refused.code).toBe(5);
    expect(refused.stdout + refused.stderr).toContain(theirs);

    const forced = await cli(['force-unlock', 'jobs:lock:orders', '--yes']);
    expect(forced.stderr).toBe('');
    expect(forced.stdout).toBe('force-unlocked "jobs:lock:orders" (bsm-redislock); waiters were notified\n');
    const next = `${bsmToken()}host-8`;
    expect(await bsmObtain(peer, ['jobs:lock:orders'], next, 60_000, 50, 20)).toBe(true);
    expect(await fx.raw.get('jobs:lock:orders')).toBe(next);
  });
});
