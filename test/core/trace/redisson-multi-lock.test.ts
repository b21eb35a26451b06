import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { decodeLines } from '../../../src/core/trace/decoder.js';
import { knownDigest } from '../../../src/core/trace/digest-catalogue.js';
import { A, at, B, lua, OWNER_A, OWNER_B, T0 } from './monitor-stream.js';

// Redisson's group multi-lock (RedissonFasterMultiLock.java and renewal/FastMultilockTask.java at
// redisson-3.52.0) as MONITOR shows it to a trace that attached after the client's SCRIPT LOAD:
// EVALSHA only, each followed by the commands its body runs for these KEYS and ARGV. Lock and
// renewal send `lease, time, owner, values…` (tryLock() without a wait `time, lease, …`), unlock
// `owner, message, lease, publish, timeout, time, values…` with KEYS group, channel, latch.

const TRY_LOCK = 'eba4f75b2998ef1ead8e55019d89d93d85dadf60';
const TRY_LOCK_ONCE = '6f6c8d62862d8d76ea41fc769938285c3aca3005';
const RENEW = '935362a31ac5b3d6f7c5c3f1e26d9a012f87f2bd';
const UNLOCK = '5088a04fb08aa002f465f0f90b35ed8da9b27a3c';
const FORCE = '9f004091f2597ace3c2e75f8b32c7adf985f412e';
const G = 'class_100';
const CHANNEL = 'redisson_lock__channel:{class_100}';
const LATCH = 'redisson_unlock_latch:{class_100}:0123456789abcdef0123456789abcdef';
const [VA, VB, VC, VD] = ['q3Jm0cXkZ9b1T4uV7wYtAg', 'Zx8+P2lKd0aRr/5mNc1e9Q', 'AbCdEfGhIjKlMnOpQrStUv', 'd0d0d0d0d0d0d0d0d0d0dw'];
const now = (ms: number) => String(T0 + ms);
const name = (v: string) => `${G}[${v}]`;

/** The commands a successful lock runs for each value: owner, its expiry, one more hold. */
const takes = (ms: number, owner: string, lease: number, ...values: string[]) =>
  values.flatMap((v) => [
    lua(ms, 'hset', G, v, owner),
    lua(ms, 'hget', G, `${v}:${owner}:expire_time`),
    lua(ms, 'hset', G, `${v}:${owner}:expire_time`, String(T0 + ms + lease)),
    lua(ms, 'HINCRBY', G, `${v}:${owner}:lock_count`, '1'),
  ]);

/** The commands an unlock runs for a value held once: the hold counted down, its three fields gone. */
const frees = (ms: number, owner: string, v: string) => [
  lua(ms, 'hget', G, `${v}:${owner}:expire_time`),
  lua(ms, 'hincrby', G, `${v}:${owner}:lock_count`, '-1'),
  lua(ms, 'hdel', G, `${v}:${owner}:expire_time`),
  lua(ms, 'hdel', G, `${v}:${owner}:lock_count`),
  lua(ms, 'hdel', G, v),
];

const stream = [
  // A locks {a, b} on a new group.
  at(1, A, 'EVALSHA', TRY_LOCK, '1', G, '30000', now(1), OWNER_A, VA, VB),
  lua(1, 'exists', G),
  ...takes(1, OWNER_A, 30_000, VA, VB),
  lua(1, 'pexpire', G, '30000'),
  // B asks for {b, c}: b is A's and live, so nothing is written (refused on b; c was never contested).
  at(2, B, 'EVALSHA', TRY_LOCK, '1', G, '30000', now(2), OWNER_B, VB, VC),
  lua(2, 'exists', G),
  lua(2, 'hget', G, VB),
  lua(2, 'hget', G, `${VB}:${OWNER_A}:expire_time`),
  lua(2, 'hget', G, VC),
  // B's tryLock() of {c, d}: disjoint from A's values, so granted beside A's.
  at(3, B, 'EVALSHA', TRY_LOCK_ONCE, '1', G, now(3), '30000', OWNER_B, VC, VD),
  lua(3, 'exists', G),
  lua(3, 'hget', G, VC),
  lua(3, 'hget', G, VD),
  ...takes(3, OWNER_B, 30_000, VC, VD),
  lua(3, 'pttl', G),
  // The watchdog renews A's two values.
  at(10, A, 'EVALSHA', RENEW, '1', G, '30000', now(10), OWNER_A, VA, VB),
  lua(10, 'exists', G),
  ...[VA, VB].flatMap((v) => [lua(10, 'hget', G, v), lua(10, 'hget', G, `${v}:${OWNER_A}:expire_time`), lua(10, 'hset', G, `${v}:${OWNER_A}:expire_time`, now(30_010))]),
  lua(10, 'pttl', G),
  // A unlocks {a, b} and wakes the group's waiters.
  at(20, A, 'EVALSHA', UNLOCK, '3', G, CHANNEL, LATCH, OWNER_A, '0', '30000', 'publish', '13500', now(20), VA, VB),
  lua(20, 'get', LATCH),
  lua(20, 'exists', G),
  ...frees(20, OWNER_A, VA),
  ...frees(20, OWNER_A, VB),
  lua(20, 'publish', CHANNEL, '0'),
  lua(20, 'set', LATCH, '1', 'px', '13500'),
  // A unlocks again: its fields are gone, so the unlock finds no hold of its own.
  at(25, A, 'EVALSHA', UNLOCK, '3', G, CHANNEL, LATCH.replace('0123', '4567'), OWNER_A, '0', '30000', 'publish', '13500', now(25), VA),
  lua(25, 'get', LATCH.replace('0123', '4567')),
  lua(25, 'exists', G),
  lua(25, 'hget', G, `${VA}:${OWNER_A}:expire_time`),
  lua(25, 'publish', CHANNEL, '0'),
  lua(25, 'set', LATCH.replace('0123', '4567'), '0', 'px', '13500'),
  // An operator's forceUnlock of {c, d}.
  at(30, A, 'EVALSHA', FORCE, '2', G, CHANNEL, '0', 'publish', VC, VD),
  ...[VC, VD].flatMap((v) => [lua(30, 'hget', G, v), lua(30, 'HDEL', G, v), lua(30, 'HDEL', G, `${v}:${OWNER_B}:expire_time`), lua(30, 'HDEL', G, `${v}:${OWNER_B}:lock_count`)]),
  lua(30, 'publish', CHANNEL, '0'),
];

describe('trace decodes Redisson group multi-locks', () => {
  it("its lock, tryLock, renewal, unlock and forceUnlock scripts are in the catalogue with their intent", () => {
    expect([TRY_LOCK, TRY_LOCK_ONCE, RENEW, UNLOCK, FORCE].map((sha) => [knownDigest(sha)?.near, knownDigest(sha)?.intent])).toEqual([
      ['tryLockInnerAsync', 'acquire'],
      ['tryLockOnceInnerAsync', 'acquire'],
      ['buildChunk', 'renew'],
      ['unlockInnerAsync', 'release'],
      ['forceUnlockAsync', 'unknown'],
    ]);
  });

  it('each value is a lock: taken, refused, renewed, released and forced per value, from EVALSHA alone', () => {
    const events = decodeLines(stream);
    expect(events.map((e) => [e.kind, e.lock, e.owner ?? null, e.t - T0])).toEqual([
      ['attempt', name(VA), OWNER_A, 1],
      ['acquired', name(VA), OWNER_A, 1],
      ['attempt', name(VB), OWNER_A, 1],
      ['acquired', name(VB), OWNER_A, 1],
      ['attempt', name(VB), OWNER_B, 2],
      ['refused', name(VB), OWNER_B, 2],
      ['attempt', name(VC), OWNER_B, 3],
      ['acquired', name(VC), OWNER_B, 3],
      ['attempt', name(VD), OWNER_B, 3],
      ['acquired', name(VD), OWNER_B, 3],
      ['renewed', name(VA), OWNER_A, 10],
      ['renewed', name(VB), OWNER_A, 10],
      ['released', name(VA), OWNER_A, 20],
      ['released', name(VB), OWNER_A, 20],
      ['release-refused', name(VA), OWNER_A, 25],
      ['force-unlocked', name(VC), null, 30],
      ['force-unlocked', name(VD), null, 30],
    ]);
    const byKind = (kind: string) => events.filter((e) => e.kind === kind);
    expect(byKind('acquired').map((e) => [e.leaseMs, e.count, e.library])).toEqual(Array(4).fill([30_000, 1, 'redisson']));
    expect(byKind('refused').map((e) => e.holders)).toEqual([[OWNER_A]]);
    expect(byKind('released').map((e) => e.count)).toEqual([0, 0]);
    expect(byKind('force-unlocked').map((e) => e.holders)).toEqual([[OWNER_B], [OWNER_B]]);
    expect(byKind('acquired')[0]!.detail).toBe(`value ${VA} of group ${G}`);
    // B's live holds removed by another client are flagged as on any lock; A's holds end cleanly.
    expect(checkEvents(events).map((f) => [f.kind, f.lock, f.owners])).toEqual([
      ['foreign-delete', name(VC), [OWNER_B]],
      ['foreign-delete', name(VD), [OWNER_B]],
    ]);
  });

  it("a holder whose value's lease ran out while another took it is judged as on any lock", () => {
    const events = decodeLines([
      at(1, A, 'EVALSHA', TRY_LOCK, '1', G, '100', now(1), OWNER_A, VA),
      lua(1, 'exists', G),
      ...takes(1, OWNER_A, 100, VA),
      lua(1, 'pexpire', G, '100'),
      // A stalls past its 100 ms; B finds A's field with a lapsed expiry and takes the value.
      at(500, B, 'EVALSHA', TRY_LOCK, '1', G, '30000', now(500), OWNER_B, VA),
      lua(500, 'exists', G),
      lua(500, 'hget', G, VA),
      lua(500, 'hget', G, `${VA}:${OWNER_A}:expire_time`),
      ...takes(500, OWNER_B, 30_000, VA),
      lua(500, 'pexpire', G, '30000'),
      // A comes back and unlocks: its expiry has passed, nothing is counted down.
      at(600, A, 'EVALSHA', UNLOCK, '3', G, CHANNEL, LATCH, OWNER_A, '0', '30000', 'publish', '13500', now(600), VA),
      lua(600, 'get', LATCH),
      lua(600, 'exists', G),
      lua(600, 'hget', G, `${VA}:${OWNER_A}:expire_time`),
      lua(600, 'publish', CHANNEL, '0'),
    ]).filter((e) => e.kind !== 'attempt');
    expect(events.map((e) => [e.kind, e.owner, e.t - T0])).toEqual([
      ['acquired', OWNER_A, 1],
      ['expired', OWNER_A, 101],
      ['acquired', OWNER_B, 500],
      ['release-refused', OWNER_A, 600],
    ]);
    // A went on as a holder after its lease (its unlock came at 600) while B held the value.
    expect(checkEvents(events).map((f) => [f.kind, f.lock, f.owners, f.unsafe])).toEqual([
      ['expired-while-held', name(VA), [OWNER_A], true],
      ['overlap', name(VA), [OWNER_A, OWNER_B], true],
    ]);
  });
});
