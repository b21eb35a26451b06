import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import { useRedisServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// doctor's rule for leaked fenced-lock token counters. The layout is RedissonFencedLock.java at
// redisson-3.52.0: the lock hash `<name>` (`<uuid>:<thread>` → holds, PEXPIRE lease) and the
// counter `redisson_lock_token:{<name>}`, INCRed at each acquisition and never given a TTL.

const fx = useRedisServer({ flushEachTest: true });
const env = tempStateEnv();
const run = promisify(execFile);
const OWNER = '5b0e1c2d-3f4a-4b5c-8d6e-7f8091a2b3c4:1';

/** doctor's findings; it exits 6 when it found any. */
async function doctor(): Promise<Finding[]> {
  const r = await runCli(['doctor', '--json'], { ...env, REDIS_URL: fx.server.url });
  const findings = JSON.parse(r.stdout || '[]') as Finding[];
  expect(r.code).toBe(findings.length > 0 ? 6 : 0);
  return findings;
}

/** Redisson's prefixName: the name braced, unless it carries its own braces. */
const counterOf = (name: string): string => (name.includes('{') ? `redisson_lock_token:${name}` : `redisson_lock_token:{${name}}`);

/** `n` counters of names locked once and never again: no lock key beside them. */
async function leak(n: number, name = (i: number) => `job-${i}`): Promise<void> {
  const pipe = fx.raw.pipeline();
  for (let i = 0; i < n; i++) pipe.set(counterOf(name(i)), String(i + 1));
  await pipe.exec();
}

/** A held fenced lock with its counter. */
async function heldFencedLock(name: string): Promise<void> {
  await fx.raw.hset(name, OWNER, '1');
  await fx.raw.pexpire(name, 30_000);
  await fx.raw.set(counterOf(name), '7');
}

describe('doctor: leaked fencing token counters', () => {
  it('1,000 counters without a lock are one finding with the count and sampled memory; a held lock is spared', async () => {
    await leak(1000);
    await heldFencedLock('orders');
    const found = (await doctor()).filter((f) => f.code === 'leaked-fencing-counter');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'warning', key: null, node: `127.0.0.1:${fx.server.port}` });
    expect(found[0]!.message).toMatch(
      /^1,000 fenced-lock token counters have no lock key beside them \(redisson_lock_token:\{…\}\), using about [\d.]+ KiB \(estimated from MEMORY USAGE of a sample of 100\)\. Redisson never expires them\. Deleting one resets its lock's fencing tokens, so it is safe only for a lock name no longer in use/,
    );
    expect(found[0]!.fix).toContain(`redis-cli -h 127.0.0.1 -p ${fx.server.port} --scan --pattern 'redisson_lock_token:*' | while IFS= read -r k; do redis-cli`);
    expect(await fx.raw.dbsize()).toBe(1002); // read-only: nothing deleted
  });

  it('no finding where every counter has its lock beside it', async () => {
    await heldFencedLock('orders');
    await heldFencedLock('{braced}name');
    expect(await doctor()).toEqual([]);
  });

  it('the printed clean-up deletes the counters without a lock and keeps the held lock\'s', async () => {
    await leak(3, (i) => (i === 0 ? '{retired}job' : `job-${i}`));
    await heldFencedLock('orders');
    await heldFencedLock('{live}job');
    const [finding] = (await doctor()).filter((f) => f.code === 'leaked-fencing-counter');
    expect(finding!.message).toContain('using 0.');
    expect(finding!.message).toContain('(MEMORY USAGE of each)');
    await run('sh', ['-c', finding!.fix], { timeout: 30_000 });
    expect((await fx.raw.keys('redisson_lock_token:*')).sort()).toEqual(['redisson_lock_token:{live}job', 'redisson_lock_token:{orders}']);
    expect(await fx.raw.get('redisson_lock_token:{orders}')).toBe('7');
  });
});
