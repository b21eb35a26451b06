import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { decodeLines as decodeAll, TraceDecoder, type DecoderOptions } from '../../../src/core/trace/decoder.js';
import { eventLine } from '../../../src/core/trace/format.js';
import type { MonitorLine } from '../../../src/core/trace/monitor-line.js';
import { eventJson, readHistory } from '../../../src/core/trace/recording.js';
import { TraceSession } from '../../../src/core/trace/session.js';
import { A, at, B, lua, OWNER_A, OWNER_B, T0 } from './monitor-stream.js';

const ACQUIRE = "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);";
const RENEW = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;";
const RELEASE = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); return 1; end; return nil;";
/** Redisson's acquire script on `orders` as MONITOR shows it, when it took the lock and when it was refused. */
const acquires = (ms: number, source: string, owner: string) => [
  at(ms, source, 'EVAL', ACQUIRE, '1', 'orders', '30000', owner),
  lua(ms, 'exists', 'orders'),
  lua(ms, 'hincrby', 'orders', owner, '1'),
  lua(ms, 'pexpire', 'orders', '30000'),
];
const refused = (ms: number, source: string, owner: string) => [
  at(ms, source, 'EVAL', ACQUIRE, '1', 'orders', '30000', owner),
  lua(ms, 'exists', 'orders'),
  lua(ms, 'hexists', 'orders', owner),
  lua(ms, 'pttl', 'orders'),
];
const TOKEN_RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

// The outcomes of each operation; attempts, which precede them, have their own test below.
const decodeLines = (lines: MonitorLine[], opts?: DecoderOptions) => decodeAll(lines, opts).filter((e) => e.kind !== 'attempt');
const kinds = (lines: MonitorLine[]) => decodeLines(lines).map((e) => `${e.kind} ${e.owner ?? ''}`.trim());

describe('trace decoder', () => {
  it('Redisson RLock: acquired, refused with its holder, renewed (EVALSHA of a learned body), released', () => {
    const events = decodeLines([
      at(0, A, 'client', 'setname', 'worker-a'),
      ...acquires(1, A, OWNER_A),
      ...refused(2, B, OWNER_B),
      at(3, A, 'SCRIPT', 'LOAD', RENEW),
      at(4, A, 'EVALSHA', '8e19a1ddbdee9138df9f32a480c57addab4353d1', '1', 'orders', '30000', OWNER_A),
      lua(4, 'hexists', 'orders', OWNER_A),
      lua(4, 'pexpire', 'orders', '30000'),
      at(5, A, 'EVAL', RELEASE, '2', 'orders', 'redisson_lock__channel:{orders}', '0', '30000', OWNER_A, 'publish'),
      lua(5, 'hexists', 'orders', OWNER_A),
      lua(5, 'hincrby', 'orders', OWNER_A, '-1'),
      lua(5, 'del', 'orders'),
      lua(5, 'publish', 'redisson_lock__channel:{orders}', '0'),
      // A renewal that changed nothing is known as one by the body learned from SCRIPT LOAD.
      at(6, A, 'EVALSHA', '8e19a1ddbdee9138df9f32a480c57addab4353d1', '1', 'orders', '30000', OWNER_A),
      lua(6, 'hexists', 'orders', OWNER_A),
    ]);
    expect(events.map((e) => [e.kind, e.owner, e.t - T0])).toEqual([
      ['acquired', OWNER_A, 1],
      ['refused', OWNER_B, 2],
      ['renewed', OWNER_A, 4],
      ['released', OWNER_A, 5],
      ['renew-refused', OWNER_A, 6],
    ]);
    expect(events[0]).toMatchObject({ client: { addr: A, name: 'worker-a' }, leaseMs: 30000, library: 'redisson', count: 1 });
    expect(events[1]).toMatchObject({ holders: [OWNER_A], client: { addr: B } });
  });

  it('token locks sent plainly: SET NX decided by the model, expiry computed from PX and the server clock', () => {
    const events = decodeLines([
      at(0, A, 'SET', 'job', 'tokA', 'NX', 'PX', '100'),
      at(50, B, 'SET', 'job', 'tokB', 'NX', 'PX', '100'),
      at(150, B, 'SET', 'job', 'tokB', 'NX', 'PX', '100'),
      at(160, A, 'EVAL', TOKEN_RELEASE, '1', 'job', 'tokA'),
      lua(160, 'get', 'job'),
    ]);
    expect(events.map((e) => [e.kind, e.owner, e.t - T0])).toEqual([
      ['acquired', 'tokA', 0],
      ['refused', 'tokB', 50],
      ['expired', 'tokA', 100],
      ['acquired', 'tokB', 150],
      ['release-refused', 'tokA', 160],
    ]);
  });

  it("Redisson's semaphore: permits taken and given back by a connection, shared, never an overlap", () => {
    const TRY_ACQUIRE = "local value = redis.call('get', KEYS[1]); if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then local val = redis.call('decrby', KEYS[1], ARGV[1]); return 1; end; return 0;";
    const RELEASE_PERMITS = "local value = redis.call('incrby', KEYS[1], ARGV[1]); redis.call(ARGV[2], KEYS[2], value);";
    const events = decodeLines([
      at(0, A, 'EVAL', TRY_ACQUIRE, '1', 'sem', '2'),
      lua(0, 'get', 'sem'),
      lua(0, 'decrby', 'sem', '2'),
      at(1, B, 'EVAL', TRY_ACQUIRE, '1', 'sem', '1'),
      lua(1, 'get', 'sem'),
      lua(1, 'decrby', 'sem', '1'),
      at(2, A, 'EVAL', RELEASE_PERMITS, '2', 'sem', 'redisson_sc:{sem}', '2', 'publish'),
      lua(2, 'incrby', 'sem', '2'),
      lua(2, 'publish', 'redisson_sc:{sem}', '3'),
    ]);
    expect(events.map((e) => [e.kind, e.owner, e.count, e.shared])).toEqual([
      ['acquired', A, 2, true],
      ['acquired', B, 1, true],
      ['released', A, 0, true],
    ]);
    expect(checkEvents(events)).toEqual([]);
  });

  it('a script whose lines arrive after a quiet flush is still decoded in its own context', () => {
    const decoder = new TraceDecoder();
    const events = [
      ...decoder.push(at(0, A, 'SET', 'job', 'tokA', 'NX', 'PX', '5000')),
      ...decoder.push(at(1, A, 'EVAL', TOKEN_RELEASE, '1', 'job', 'tokA')),
      ...decoder.flush(), // the stream paused after the EVAL line
      ...decoder.push(lua(1, 'get', 'job')),
      ...decoder.push(lua(1, 'del', 'job')),
      ...decoder.flush(),
    ];
    expect(events.map((e) => [e.kind, e.owner, e.client?.addr])).toEqual([
      ['attempt', 'tokA', A],
      ['acquired', 'tokA', A],
      ['released', 'tokA', A],
    ]);
  });

  it('a function (FCALL) is decoded from the commands it ran', () => {
    const events = decodeLines([at(0, A, 'FCALL', 'mylock', '1', 'fn-lock', 'tokF', '500'), lua(0, 'set', 'fn-lock', 'tokF', 'NX', 'PX', '500')]);
    expect(events.map((e) => [e.kind, e.owner, e.leaseMs])).toEqual([['acquired', 'tokF', 500]]);
  });

  it('the pattern keeps other keys out; plain writes to non-lock keys are not events', () => {
    expect(kinds([at(0, A, 'SET', 'cache', 'v'), at(1, A, 'DEL', 'cache'), at(2, A, 'SET', 'x:1', 't', 'NX', 'PX', '10')])).toEqual(['acquired t']);
    expect(decodeLines([at(2, A, 'SET', 'x:1', 't', 'NX', 'PX', '10')], { wants: (k) => k.startsWith('orders') })).toEqual([]);
  });

  it('DEL, FLUSHALL and unknown writes on a lock are reported, with the holders they removed', () => {
    const events = decodeLines([
      at(0, A, 'SET', 'l1', 'a', 'NX', 'PX', '10000'),
      at(1, B, 'DEL', 'l1'),
      at(2, A, 'SET', 'l2', 'a', 'NX', 'PX', '10000'),
      at(3, B, 'APPEND', 'l2', 'x'),
      at(4, B, 'FLUSHALL'),
    ]);
    expect(events.map((e) => [e.kind, e.lock, e.holders ?? null, e.command ?? null])).toEqual([
      ['acquired', 'l1', null, null],
      ['deleted', 'l1', ['a'], ['DEL', 'l1']],
      ['acquired', 'l2', null, null],
      ['raw', 'l2', null, ['APPEND', 'l2', 'x']],
      ['deleted', 'l2', ['a'], ['FLUSHALL']],
    ]);
  });

  it('a fair lock queue: join with its deadline, the purge of an overdue head', () => {
    const events = decodeLines([
      at(0, A, 'EVAL', "redis.call('hset', KEYS[1], ARGV[2], 1)", '3', 'f', 'redisson_lock_queue:{f}', 'redisson_lock_timeout:{f}', '30000', OWNER_A),
      lua(0, 'hset', 'f', OWNER_A, '1'),
      lua(0, 'pexpire', 'f', '30000'),
      at(1, B, 'EVAL', "redis.call('hset', KEYS[1], ARGV[2], 1)", '3', 'f', 'redisson_lock_queue:{f}', 'redisson_lock_timeout:{f}', '30000', OWNER_B),
      lua(1, 'exists', 'f'),
      lua(1, 'zadd', 'redisson_lock_timeout:{f}', String(T0 + 500), OWNER_B),
      lua(1, 'rpush', 'redisson_lock_queue:{f}', OWNER_B),
      at(900, A, 'EVAL', "redis.call('hset', KEYS[1], ARGV[2], 1)", '3', 'f', 'redisson_lock_queue:{f}', 'redisson_lock_timeout:{f}', '30000', OWNER_A),
      lua(900, 'lindex', 'redisson_lock_queue:{f}', '0'),
      lua(900, 'zrem', 'redisson_lock_timeout:{f}', OWNER_B),
      lua(900, 'lpop', 'redisson_lock_queue:{f}'),
    ]);
    expect(events.map((e) => `${e.kind} ${e.owner}`)).toEqual([`acquired ${OWNER_A}`, `queue-join ${OWNER_B}`, `refused ${OWNER_B}`, `queue-leave ${OWNER_B}`]);
    expect(events[1]?.deadline).toBe(T0 + 500);
    expect(checkEvents(events).map((f) => f.kind)).toEqual(['overdue-queue-head']);
  });
});

describe('trace checker', () => {
  it('a paused holder: expired-while-held and overlap, naming both, at the server times', () => {
    const events = decodeLines([
      at(0, A, 'SET', 'job', 'tokA', 'NX', 'PX', '300'),
      at(400, B, 'SET', 'job', 'tokB', 'NX', 'PX', '5000'),
      at(1000, A, 'EVAL', TOKEN_RELEASE, '1', 'job', 'tokA'),
      lua(1000, 'get', 'job'),
    ]);
    const findings = checkEvents(events);
    expect(findings.map((f) => [f.kind, f.owners, f.from - T0, f.to - T0, f.unsafe])).toEqual([
      ['expired-while-held', ['tokA'], 300, 1000, true],
      ['overlap', ['tokA', 'tokB'], 400, 1000, true],
    ]);
    expect(findings[1]?.clients.map((c) => c.addr)).toEqual([A, B]);
  });

  it('safe traffic, including a lease that lapses with nobody acting on it afterwards, finds nothing', () => {
    const events = decodeLines([
      at(0, A, 'SET', 'job', 'tokA', 'NX', 'PX', '300'),
      at(100, A, 'EVAL', TOKEN_RELEASE, '1', 'job', 'tokA'),
      lua(100, 'get', 'job'),
      lua(100, 'del', 'job'),
      at(200, B, 'SET', 'job', 'tokB', 'NX', 'PX', '50'),
      at(400, A, 'SET', 'job', 'tokC', 'NX', 'PX', '300'),
    ]);
    expect(events.map((e) => e.kind)).toEqual(['acquired', 'released', 'acquired', 'expired', 'acquired']);
    expect(checkEvents(events)).toEqual([]);
  });

  it('foreign-delete, silent-reacquire, no-ttl and a late renewal', () => {
    const findings = checkEvents(
      decodeLines([
        at(0, A, 'SET', 'a', 't1', 'NX', 'PX', '10000'),
        at(1, B, 'UNLINK', 'a'),
        at(2, A, 'SET', 'b', 't1', 'NX', 'PX', '100'),
        at(300, A, 'SET', 'b', 't1', 'PX', '100'),
        at(400, A, 'SETNX', 'c', 't2'),
        at(500, A, 'SET', 'd', 't3', 'NX', 'PX', '300'),
        at(750, A, 'PEXPIRE', 'd', '300'),
      ]),
    );
    expect(findings.map((f) => [f.kind, f.lock, f.unsafe])).toEqual([
      ['foreign-delete', 'a', true],
      ['silent-reacquire', 'b', true],
      ['no-ttl', 'c', false],
      ['renewal-gap', 'd', false],
    ]);
  });

  it('attempt: every acquisition request, before its outcome, at the time the request reached the server', () => {
    const lines = [
      ...acquires(1, A, OWNER_A),
      ...refused(2, B, OWNER_B),
      at(3, A, 'EVAL', RELEASE, '2', 'orders', 'redisson_lock__channel:{orders}', '0', '30000', OWNER_A, 'publish'),
      lua(3, 'hexists', 'orders', OWNER_A),
      lua(3, 'hincrby', 'orders', OWNER_A, '-1'),
      lua(3, 'del', 'orders'),
      // B retries once the lock is free: its wait runs from its first attempt.
      ...acquires(50, B, OWNER_B),
      at(60, A, 'SET', 'job', 'tokA', 'NX', 'PX', '100'),
      at(61, B, 'SET', 'job', 'tokB', 'NX', 'PX', '100'),
      at(62, B, 'EVAL', RENEW, '1', 'orders', '30000', OWNER_B),
      lua(62, 'hexists', 'orders', OWNER_B),
      lua(62, 'pexpire', 'orders', '30000'),
    ];
    const events = decodeAll(lines);
    expect(events.map((e) => [e.kind, e.lock, e.owner, e.t - T0, e.client?.addr])).toEqual([
      ['attempt', 'orders', OWNER_A, 1, A],
      ['acquired', 'orders', OWNER_A, 1, A],
      ['attempt', 'orders', OWNER_B, 2, B],
      ['refused', 'orders', OWNER_B, 2, B],
      ['released', 'orders', OWNER_A, 3, A],
      ['attempt', 'orders', OWNER_B, 50, B],
      ['acquired', 'orders', OWNER_B, 50, B],
      ['attempt', 'job', 'tokA', 60, A],
      ['acquired', 'job', 'tokA', 60, A],
      ['attempt', 'job', 'tokB', 61, B],
      ['refused', 'job', 'tokB', 61, B],
      ['renewed', 'orders', OWNER_B, 62, B],
    ]);
    // Redisson's owner is in ARGV: the attempt is out as soon as the EVAL line is, before its commands.
    const live = new TraceDecoder();
    expect(live.push(lines[0]!).map((e) => [e.kind, e.owner])).toEqual([['attempt', OWNER_A]]);
    // The summary's wait runs from the first attempt to the acquisition; an uncontended one waited 0 ms.
    const session = new TraceSession();
    session.push(events);
    const orders = session.locks().find((l) => l.lock === 'orders');
    expect(orders).toMatchObject({ acquisitions: 2, refusals: 1, waitMs: { p50: 0 } });
    // The waits' histogram keeps 2 significant digits: 48 ms is reported within 1 %, never under it.
    expect(orders?.waitMs?.p99).toBeGreaterThanOrEqual(48);
    expect(orders?.waitMs?.p99).toBeLessThan(48 * 1.01);
    expect(eventLine(events[2]!)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}orders {2}attempt {2}by 9e8d7c6b…:7 \[127\.0\.0\.1:5002\]$/);
    // A recording carries attempts like every other event.
    expect(readHistory(events.map(eventJson).join('\n')).events).toEqual(events);
  });
});
