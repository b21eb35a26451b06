import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { decodeLines } from '../../../src/core/trace/decoder.js';
import { knownDigest } from '../../../src/core/trace/digest-catalogue.js';
import { scriptIntent } from '../../../src/core/trace/script-intent.js';
import { monitorFixture, outcomes } from './fixtures/read.js';

// Spring Integration RedisLockRegistry as Redis 7.0's MONITOR prints it. The fixture is written
// from the scripts and call order of spring-integration v7.1.1,
// spring-integration-redis/src/main/java/org/springframework/integration/redis/util/RedisLockRegistry.java
// (no Java client on this machine): two PUB_SUB_LOCK registries on `orders` (obtain, refusal,
// renewal, unlock with its PUBLISH, the waiter's obtain) and a SPIN_LOCK registry on `reports`.
// Spring Data Redis tries EVALSHA first and sends EVAL after a NOSCRIPT (fixtures/README.md).

const lines = monitorFixture('spring-integration-v7.1.1.monitor');
const CA = '3f2a6c1e-8b4d-4e2a-9c1f-7d5e6b4a3c21';
const CB = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const CC = '5c4b3a29-1807-4f6e-9d5c-4b3a29180716';
const T0 = 1_795_831_200_000;


const EXPECTED = [
  [0, 'orders:invoice-7', 'acquired', CA],
  [100, 'orders:invoice-7', 'refused', CB],
  [101, 'orders:invoice-7', 'refused', CB],
  [20_000, 'orders:invoice-7', 'renewed', CA],
  [30_000, 'orders:invoice-7', 'released', CA],
  [30_001, 'orders:invoice-7', 'acquired', CB],
  [35_000, 'orders:invoice-7', 'released', CB],
  [40_000, 'reports:nightly', 'acquired', CC],
  [41_000, 'reports:nightly', 'released', CC],
];

describe('trace decodes Spring RedisLockRegistry (v7.1.1 on Redis 7.0)', () => {
  it('every obtain, refusal, renewal and unlock with the client id as owner, and no finding', () => {
    expect(lines).toHaveLength(32);
    expect(outcomes(lines, T0)).toEqual(EXPECTED);
    expect(checkEvents(decodeLines(lines))).toEqual([]);
  });

  it('a trace that attaches after the scripts were loaded decodes the same from the digest catalogue', () => {
    const digestsOnly = lines.filter((l) => l.args[0] !== 'EVAL');
    expect(outcomes(digestsOnly, T0)).toEqual(EXPECTED);
  });

  it("the catalogue names each script's release range and intent, as its body reads", () => {
    const bodies = lines.filter((l) => l.args[0] === 'EVAL').map((l) => l.args[1]!);
    const seen = bodies.map((body) => {
      const entry = knownDigest(createHash('sha1').update(body).digest('hex'))!;
      return [entry.library, entry.intent, scriptIntent(body), entry.last];
    });
    expect(seen).toEqual([
      ['spring-integration', 'acquire', 'acquire', 'v7.1.1'],
      ['spring-integration', 'renew', 'renew', 'v7.1.1'],
      ['spring-integration', 'release', 'release', 'v7.1.1'],
      ['spring-integration', 'release', 'release', 'v7.1.1'],
    ]);
  });
});
