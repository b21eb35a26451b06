import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { KeyspaceDecoder, readingFor, type KeyReading, type KeyspaceNotice } from '../../../src/core/trace/keyspace-decoder.js';
import { missingFlagsMessage, missingNotifyFlags, withNotifyFlags } from '../../../src/core/trace/notify-flags.js';

// Notices as a server with notify-keyspace-events "Kg$hx" publishes them: one per effect of a
// command, in order (SET ... PX: `set` then `expire`; Redisson's release: `hincrby` then `del`),
// each write with the reading the source took right after it.

const T0 = 1_764_064_800_000;
const OWNER_A = '6f1c2a3b-0000-4000-8000-000000000001:1';
const OWNER_B = '9e8d7c6b-0000-4000-8000-000000000002:7';
const gone: KeyReading = { exists: false, pttl: -2 };
const str = (value: string, pttl: number): KeyReading => ({ exists: true, value, pttl });
const hash = (fields: Record<string, string>, pttl: number): KeyReading => ({ exists: true, fields, pttl });
const ttl = (pttl: number): KeyReading => ({ exists: true, pttl });
const n = (ms: number, key: string, event: string, reading?: KeyReading): KeyspaceNotice => ({ t: T0 + ms, key, event, reading });

function decode(notices: KeyspaceNotice[], wants?: (lock: string) => boolean) {
  const decoder = new KeyspaceDecoder(wants ? { wants } : {});
  return notices.flatMap((x) => decoder.push(x));
}
const brief = (events: ReturnType<typeof decode>) => events.map((e) => [e.kind, e.lock, e.owner ?? null, e.t - T0, e.leaseMs ?? null, e.count ?? null]);

describe('keyspace decoder', () => {
  it('a token lock: SET with PX is one acquisition (its expire is the lease), the holder\'s SET a renewal, DEL its release', () => {
    const events = decode([
      n(0, 'job', 'set', str('tokA', 5000)),
      n(0, 'job', 'expire', ttl(5000)),
      n(10, 'job', 'set', str('tokA', 8000)),
      n(10, 'job', 'expire', ttl(8000)),
      n(20, 'job', 'expire', ttl(9000)),
      n(30, 'job', 'del'),
    ]);
    expect(brief(events)).toEqual([
      ['acquired', 'job', 'tokA', 0, 5000, 1],
      ['renewed', 'job', 'tokA', 10, 8000, null],
      ['renewed', 'job', 'tokA', 20, 9000, null],
      ['released', 'job', 'tokA', 30, null, 0],
    ]);
    expect(events.every((e) => e.client === undefined && e.library === 'token')).toBe(true);
  });

  it('a Redisson lock: holders and counts from the hash read after each write; a release is the hincrby and del together', () => {
    const events = decode([
      n(0, 'orders', 'hincrby', hash({ [OWNER_A]: '1' }, 30000)),
      n(0, 'orders', 'expire', ttl(30000)),
      n(5, 'orders', 'hincrby', hash({ [OWNER_A]: '2' }, 30000)),
      n(5, 'orders', 'expire', ttl(30000)),
      n(8, 'orders', 'hincrby', hash({ [OWNER_A]: '1' }, 30000)),
      n(8, 'orders', 'expire', ttl(30000)),
      n(10, 'orders', 'expire', ttl(30000)),
      n(20, 'orders', 'hincrby', gone),
      n(20, 'orders', 'del'),
    ]);
    expect(brief(events)).toEqual([
      ['acquired', 'orders', OWNER_A, 0, 30000, 1],
      ['acquired', 'orders', OWNER_A, 5, 30000, 2],
      ['released', 'orders', OWNER_A, 8, null, 1],
      ['renewed', 'orders', OWNER_A, 10, 30000, null],
      ['released', 'orders', OWNER_A, 20, null, 0],
    ]);
    expect(checkEvents(events)).toEqual([]);
  });

  it('expired comes from the server\'s own notification only, with the holder it ended', () => {
    const events = decode([n(0, 'job', 'set', str('tokA', 100)), n(0, 'job', 'expire', ttl(100)), n(180, 'job', 'expired'), n(190, 'job', 'set', str('tokB', 100))]);
    expect(brief(events)).toEqual([
      ['acquired', 'job', 'tokA', 0, 100, 1],
      ['expired', 'job', 'tokA', 180, 100, null],
      ['acquired', 'job', 'tokB', 190, 100, 1],
    ]);
    expect(events[1]?.detail).toBe("the server's expired notification");
    // Nothing expires on the model's clock: a lease that ran out with no notification yet is still held.
    expect(brief(decode([n(0, 'job', 'set', str('tokA', 100)), n(5000, 'other', 'set', str('x', 100))]))).toEqual([
      ['acquired', 'job', 'tokA', 0, 100, 1],
      ['acquired', 'other', 'x', 5000, 100, 1],
    ]);
  });

  it('a key that changed again before it was read: the event has no owner and says so', () => {
    const events = decode([n(0, 'orders', 'hincrby', gone), n(0, 'orders', 'expire', gone), n(1, 'orders', 'hincrby', gone), n(1, 'orders', 'del')]);
    expect(events.map((e) => [e.kind, e.owner ?? null, e.detail])).toEqual([
      ['acquired', null, 'owner unknown: keyspace events carry no values and the key had changed when read'],
      ['released', null, 'owner unknown: keyspace events carry no values and the key had changed when read'],
    ]);
  });

  it('a DEL of a Redisson lock with no release before it is a foreign delete; strings without TTL and other keys are not locks', () => {
    const events = decode([
      n(0, 'orders', 'hincrby', hash({ [OWNER_B]: '1' }, 30000)),
      n(1, 'orders', 'del'),
      n(2, 'cache', 'set', str('v', -1)),
      n(3, 'cache', 'del'),
      n(4, 'redisson_lock_queue:{orders}', 'rpush'),
    ]);
    expect(events.map((e) => [e.kind, e.lock, e.holders ?? null, e.command ?? null])).toEqual([
      ['acquired', 'orders', null, null],
      ['deleted', 'orders', [OWNER_B], ['DEL', 'orders']],
    ]);
    expect(checkEvents(events).map((f) => [f.kind, f.owners])).toEqual([['foreign-delete', [OWNER_B]]]);
    expect(decode([n(0, 'job', 'set', str('t', 100))], (k) => k.startsWith('orders'))).toEqual([]);
  });

  it('a read-write lock: readers join and leave as shared holds', () => {
    const events = decode([
      n(0, 'rw', 'hset', hash({ mode: 'read', [OWNER_A]: '1' }, 30000)),
      n(1, 'rw', 'hincrby', hash({ mode: 'read', [OWNER_A]: '1', [OWNER_B]: '1' }, 30000)),
      n(2, 'rw', 'hdel', hash({ mode: 'read', [OWNER_B]: '1' }, 30000)),
    ]);
    expect(events.map((e) => [e.kind, e.owner, e.shared])).toEqual([
      ['reader-join', OWNER_A, true],
      ['reader-join', OWNER_B, true],
      ['reader-leave', OWNER_A, true],
    ]);
  });

  it('reads what each event needs; the flags it needs, what is missing and how to enable them', () => {
    expect(['set', 'hincrby', 'hdel', 'expire', 'del', 'expired'].map(readingFor)).toEqual(['string', 'hash', 'hash', 'ttl', undefined, undefined]);
    expect(missingNotifyFlags('')).toEqual(['K', 'g', '$', 'h', 'x']);
    expect(missingNotifyFlags('AKE')).toEqual([]);
    expect(missingNotifyFlags('Ex')).toEqual(['K', 'g', '$', 'h']);
    expect(withNotifyFlags('Ex')).toBe('ExKg$h');
    expect(missingFlagsMessage('127.0.0.1:7000', '')).toBe(
      '--source keyspace: notify-keyspace-events on 127.0.0.1:7000 is "", without K g $ h x: run CONFIG SET notify-keyspace-events "Kg$hx" there, or add --enable-notifications (trace sets them and puts "" back when it ends)',
    );
  });
});
