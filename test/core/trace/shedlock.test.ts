import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { decodeLines } from '../../../src/core/trace/decoder.js';
import { knownDigest } from '../../../src/core/trace/digest-catalogue.js';
import { monitorFixture, outcomes } from './fixtures/read.js';

// ShedLock's Redis providers as Redis 7.0's MONITOR prints them. The fixture is written from
// shedlock-parent-7.9.0, providers/redis/shedlock-support-redis/.../InternalRedisLockProvider.java
// and shedlock-provider-redis-spring/.../RedisLockProvider.java (no Java client on this machine):
// `nightly` under the default provider (safeUpdate off: SET XX to keep the key until
// lockAtLeastFor, a plain DEL after it), `report` with safeUpdate (the same in Lua).

const lines = monitorFixture('shedlock-7.9.0.monitor');
const T0 = 1_795_831_200_000;
const value = (at: string, host: string, id: string) => `ADDED:2026-11-28T02:${at}Z@${host}:${id}`;
const A1 = value('00:00.000', 'worker-7', '1b4e28ba-2fa1-41d2-883f-0016d3cca427');
const B1 = value('00:00.002', 'worker-9', '6fa459ea-ee8a-4ca4-894e-db77e160355e');
const B2 = value('02:10.000', 'worker-9', '0e2c1a7f-3b5d-4c8e-9f1a-2b3c4d5e6f70');
const A3 = value('06:40.000', 'worker-7', '7c9e6679-7425-40de-944b-e07fc1f90ae7');
const B4 = value('10:00.000', 'worker-9', 'a3bb189e-8bf9-4888-9912-ace4e6543002');
const NIGHTLY = 'job-lock:default:nightly';
const REPORT = 'job-lock:default:report';

describe('trace decodes ShedLock (7.9.0 on Redis 7.0)', () => {
  it('lock, a skipped run, the key kept until lockAtLeastFor, the next run, and both unlocks', () => {
    expect(outcomes(lines, T0)).toEqual([
      [0, NIGHTLY, 'acquired', A1],
      [2, NIGHTLY, 'refused', B1],
      // The job ended after 45 s; lockAtLeastFor (2 min) keeps the key until 120 s.
      [45_000, NIGHTLY, 'renewed', A1],
      [120_000, NIGHTLY, 'expired', A1],
      [130_000, NIGHTLY, 'acquired', B2],
      [310_000, NIGHTLY, 'deleted', undefined],
      [400_000, REPORT, 'acquired', A3],
      [430_000, REPORT, 'renewed', A3],
      [520_000, REPORT, 'expired', A3],
      [600_000, REPORT, 'acquired', B4],
      [780_000, REPORT, 'released', B4],
    ]);
  });

  it('the lockAtLeastFor expiry is no finding; the blind DEL is named as an unchecked release, the safeUpdate unlock is not', () => {
    const findings = checkEvents(decodeLines(lines));
    expect(findings.map((f) => [f.kind, f.lock, f.unsafe, f.owners])).toEqual([['unchecked-release', NIGHTLY, false, [B2]]]);
    expect(findings[0]!.message).toContain('ShedLock without safeUpdate');
  });

  it("safeUpdate's two scripts are in the catalogue with their intent and release range", () => {
    const shas = lines.filter((l) => l.args[0] === 'EVALSHA').map((l) => knownDigest(l.args[1]!));
    expect(shas.map((d) => [d?.library, d?.intent, d?.first, d?.last])).toEqual([
      ['shedlock', 'renew', 'shedlock-parent-6.7.0', 'shedlock-parent-7.9.0'],
      ['shedlock', 'release', 'shedlock-parent-6.7.0', 'shedlock-parent-7.9.0'],
    ]);
  });
});
