import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Scenario S5b: a watchdog keeps renewing a lock whose holder is gone. doctor sees renewals as a
// TTL that went back up between two reads, and a holder as present when a connection is named
// with its client UUID (Redisson's clientName); without names it can only say it cannot tell.

const fx = useLockServer();
const uuid = (n: number) => owner(n).slice(0, 36);
let renewer: NodeJS.Timeout | undefined;
let named: Redis | undefined;

beforeEach(async () => {
  await hashLock('reentrant').tryAcquire(fx.env, { key: 'renewed', owner: owner(1), leaseMs: 2000 });
  await hashLock('reentrant').tryAcquire(fx.env, { key: 'quiet', owner: owner(2), leaseMs: 30_000 });
  // A watchdog renewing 'renewed' every 100 ms, on a connection of its own.
  renewer = setInterval(() => void fx.raw.pexpire('renewed', 2000), 100);
});
afterEach(() => {
  clearInterval(renewer);
  named?.disconnect();
  named = undefined;
});

async function nameConnection(name: string): Promise<void> {
  named = rawClient(fx.server);
  await named.client('SETNAME', name);
}

const doctor = async () => {
  const r = await runCli(['doctor', '--renewals', '400ms', '--json'], tempStateEnv({ REDIS_URL: fx.server.url }));
  return { ...r, findings: JSON.parse(r.stdout) as Finding[] };
};

describe('doctor --renewals', () => {
  it('without connection names it reports nothing and says the holders are not visible', async () => {
    const r = await doctor();
    expect([r.code, r.findings]).toEqual([0, []]);
    expect(r.stderr).toContain('note: 1 lock(s) renewed while doctor watched; no connection name carries a client UUID');
  });

  it('a lock renewed while no connection carries its holder UUID is a finding, with force-unlock as the fix', async () => {
    await nameConnection(`redisson-${uuid(7)}`); // some other Redisson client, named
    const r = await doctor();
    expect(r.code).toBe(6);
    expect(r.findings.map((f) => [f.severity, f.code, f.key, f.fix])).toEqual([
      ['warning', 'renewed-without-holder', 'renewed', 'redlock-cli force-unlock renewed --kind reentrant --yes'],
    ]);
    expect(r.findings[0]!.message).toContain(`no connection is named with its holder's client ${uuid(1)}`);
  });

  it("no finding when the holder's connection is there", async () => {
    await nameConnection(`redisson-${uuid(1)}`);
    const r = await doctor();
    expect([r.code, r.findings]).toEqual([0, []]);
  });
});
