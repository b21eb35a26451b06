import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { parseMonitorLine, type MonitorLine } from '../../../src/core/trace/monitor-line.js';
import { readHistory } from '../../../src/core/trace/recording.js';

// A `redis-cli monitor` log of the real Redisson 3.52 client, byte for byte, its scripts cached
// before the log started (EVALSHA only). X (test/helpers/RedissonMultiHold.java) holds alpha, beta
// and gamma, and its watchdog renews all three in one script run (Redisson 3.44+'s batch). X is
// stopped (SIGSTOP) past its 900 ms lease; Y (redisson-peer trylock beta, watchdog) takes beta
// and holds it 1.5 s; X wakes: one batch finds none of its locks; after Y's release, X's unlock
// of each is refused (SIGTERM).

const LOG = readFileSync(new URL('fixtures/redisson-batched-watchdog.monitor.txt', import.meta.url), 'utf8');
const X = 'a2618591-08eb-4f11-8487-de7a2b6184c6:1';
const Y = 'acdb3aab-e999-40a0-8c1c-4c69e88e63ab:1';
/** The digest of Redisson 3.44-4.x's batched renewal (LockTask): KEYS the locks, ARGV[1] the lease, ARGV[i + 1] KEYS[i]'s owner. */
const BATCH = '6a3d31570dc6f4b0bd32bcdc8e75667747c6f635';

const { events } = readHistory(LOG);
const lines = LOG.split('\n').map(parseMonitorLine).filter((l): l is MonitorLine => l !== undefined);
const batches = lines.filter((l) => l.args[0] === 'EVALSHA' && l.args[1] === BATCH && l.args[2] === '3');
const renewals = (t: number) => events.filter((e) => e.t === t && (e.kind === 'renewed' || e.kind === 'renew-refused'));
const only = (kind: TraceEvent['kind'], owner: string, lock: string) => events.filter((e) => e.kind === kind && e.owner === owner && e.lock === lock);

describe("Redisson's batched watchdog, from the real client's MONITOR traffic", () => {
  it('splits each batch into one renewal per lock it touched, with that lock and its owner', () => {
    expect(batches.length).toBeGreaterThan(10);
    for (const batch of batches) {
      const split = renewals(batch.t);
      expect(split.map((e) => [e.lock, e.owner])).toEqual([
        ['alpha', X],
        ['beta', X],
        ['gamma', X],
      ]);
      expect(split.every((e) => e.kind === 'renewed' ? e.leaseMs === 900 : true)).toBe(true);
    }
  });

  it('a batch that found none of its locks is a refused renewal of each, beta naming its new holder', () => {
    const refused = batches.filter((b) => renewals(b.t).some((e) => e.kind === 'renew-refused'));
    expect(refused).toHaveLength(1);
    expect(renewals(refused[0]!.t).map((e) => [e.kind, e.lock, e.holders])).toEqual([
      ['renew-refused', 'alpha', []],
      ['renew-refused', 'beta', [Y]],
      ['renew-refused', 'gamma', []],
    ]);
  });

  it("finds each lock held past its lease to X's refused unlock, and the overlap on beta covering Y's whole hold", () => {
    const [yIn, yOut] = [only('acquired', Y, 'beta')[0]!, only('released', Y, 'beta')[0]!];
    const findings = checkEvents(events).filter((f) => f.kind !== 'renewal-gap');
    const held = (lock: string) => ['expired-while-held', lock, [X], only('expired', X, lock)[0]!.t, only('release-refused', X, lock)[0]!.t];
    // In the order their evidence arrived: the refused batch, lock by lock.
    expect(findings.map((f) => [f.kind, f.lock, f.owners, f.from, f.to])).toEqual([
      held('alpha'),
      held('beta'),
      ['overlap', 'beta', [X, Y], yIn.t, yOut.t],
      held('gamma'),
    ]);
    // Y held beta 1.5 s (as the client reported it); the old window ended at X's refused renewal.
    expect(yOut.t - yIn.t).toBeGreaterThan(1500);
  });
});
