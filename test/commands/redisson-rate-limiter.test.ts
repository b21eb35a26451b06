import { describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { useRedisServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Redisson's RRateLimiter keys are no lock and none of them a semaphore. Layout as
// RedissonRateLimiter.java at redisson-3.52.0 writes it (setRateAsync, tryAcquireAsync): the config
// hash `<name>` {rate, interval ms, type 0 OVERALL / 1 PER_CLIENT, keepAliveTime ms}; permits left
// in `{<name>}:value`; each grant in the zset `{<name>}:permits`, member struct.pack('Bc0I', 16,
// <16 random bytes>, permits) scored by the grant's epoch ms; PER_CLIENT keys end in
// `:<client uuid>` (ServiceManager.getId).

const fx = useRedisServer({ flushEachTest: true });
const env = tempStateEnv();
const cli = (argv: readonly string[]) => runCli(argv, { ...env, REDIS_URL: fx.server.url });
const CLIENT = 'c4a1f0e2-7b3d-4e5f-9a8b-1c2d3e4f5a6b';

/** struct.pack('Bc0I', #random, random, permits): length byte, the bytes, a native (little-endian) uint32. */
function grant(random: number, permits: number): Buffer {
  const member = Buffer.alloc(1 + 16 + 4);
  member[0] = 16;
  member.fill(random, 1, 17);
  member.writeUInt32LE(permits, 17);
  return member;
}

async function writeLimiters(): Promise<void> {
  const now = Date.now();
  await fx.raw.hset('api-limit', 'rate', '10', 'interval', '1000', 'type', '0', 'keepAliveTime', '0');
  await fx.raw.set('{api-limit}:value', '7');
  await fx.raw.zadd('{api-limit}:permits', String(now - 200), grant(1, 2), String(now - 100), grant(2, 1));
  await fx.raw.hset('per-client', 'rate', '5', 'interval', '60000', 'type', '1', 'keepAliveTime', '0');
  await fx.raw.set(`{per-client}:value:${CLIENT}`, '4');
  await fx.raw.zadd(`{per-client}:permits:${CLIENT}`, String(now), grant(3, 1));
}

describe("Redisson's rate limiter keys in the commands", () => {
  it('ls lists each limiter once, as a rate limiter, none of its keys as a semaphore; doctor finds nothing', async () => {
    await writeLimiters();
    const ls = await cli(['ls', '--json']);
    expect(ls.code).toBe(0);
    expect((JSON.parse(ls.stdout) as LockView[]).map((v) => [v.key, v.kind]).sort()).toEqual([['api-limit', 'rate-limiter'], ['per-client', 'rate-limiter']]);
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toBe('');
  });

  it("inspect of a limiter's value key names the limiter it belongs to", async () => {
    await writeLimiters();
    const [view] = JSON.parse((await cli(['inspect', `{per-client}:value:${CLIENT}`, '--json'])).stdout) as LockView[];
    expect(view).toMatchObject({ kind: 'not-a-lock' });
    expect(view!.warnings).toContainEqual(expect.objectContaining({ code: 'companion-key', message: expect.stringContaining('rate limiter "per-client"') }));
  });

  it('inspect of the config reads the fixture byte-exact: grants decoded from their packed members', async () => {
    await writeLimiters();
    const [overall, perClient] = JSON.parse((await cli(['inspect', 'api-limit', 'per-client', '--json'])).stdout) as LockView[];
    expect(overall!.rateLimiter!.states).toMatchObject([{ client: null, stored: 7, availableNow: 7, grants: [{ permits: 2 }, { permits: 1 }] }]);
    expect(perClient!.rateLimiter!.states).toMatchObject([{ client: CLIENT, stored: 4, grants: [{ permits: 1 }] }]);
  });

  it('doctor: a keepAliveTime limiter whose TTL was removed is flagged; over-rate grants are a warning', async () => {
    await writeLimiters();
    await fx.raw.hset('api-limit', 'keepAliveTime', '60000', 'interval', '3600000'); // no grant lapses mid-test
    await fx.raw.zadd('{api-limit}:permits', String(Date.now()), grant(4, 9));
    const doctor = await cli(['doctor', '--json']);
    const found = (JSON.parse(doctor.stdout) as { code: string; key: string; fix: string }[]).map((f) => [f.code, f.key, f.fix]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['rate-limiter-keepalive-without-ttl', 'api-limit', expect.stringContaining('PEXPIRE api-limit 60000')],
        ['rate-limiter-over-rate', 'api-limit', expect.stringContaining('inspect api-limit')],
      ]),
    );
    expect(found).toHaveLength(2);
  });

  it('doctor flags limiter keys whose config hash is gone, as other left-over companions', async () => {
    await writeLimiters();
    await fx.raw.del('api-limit');
    const doctor = await cli(['doctor', '--json']);
    expect(doctor.code).toBe(6);
    const keys = (JSON.parse(doctor.stdout) as { code: string; key: string }[]).map((f) => [f.code, f.key]).sort();
    expect(keys).toEqual([['orphan-companion', '{api-limit}:permits'], ['orphan-companion', '{api-limit}:value']]);
  });
});
