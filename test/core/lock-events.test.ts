import { describe, expect, it } from 'vitest';
import { deriveLockEvents, describeLockEvent, type LockEvent } from '../../src/core/lock-events.js';
import type { HolderView, LockView, QueueEntryView, ReaderView } from '../../src/core/lock-view.js';

const A = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
const B = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:7';
const C = 'a0b1c2d3-0000-4000-8000-000000000003:12';
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

const missing = (at = 0): LockView => ({ key: 'orders', kind: 'missing', type: 'none', ttlMs: -2, holders: [], waiters: 0, warnings: [], readAt: T0 + at });
const holder = (owner: string, count = 1, extra: Partial<HolderView> = {}): HolderView => ({ owner, count, ...extra });
const lock = (at: number, ttlMs: number, holders: HolderView[], extra: Partial<LockView> = {}): LockView => ({
  ...missing(at),
  kind: 'reentrant',
  type: 'hash',
  ttlMs,
  holders,
  ...extra,
});
const q = (owner: string, position: number, deadlineInMs: number | null): QueueEntryView => ({ owner, position, deadlineInMs });
const fair = (at: number, ttlMs: number, holders: HolderView[], queue: QueueEntryView[]): LockView => lock(at, ttlMs, holders, { kind: 'fair', queue });
const reader = (owner: string, count = 1): ReaderView => ({ owner, count, timeoutKeys: [{ key: `{orders}:${owner}:rwlock_timeout:1`, ttlMs: 20_000 }], zombie: false });
const rw = (at: number, ttlMs: number, mode: 'read' | 'write' | undefined, readers: ReaderView[], holders: HolderView[] = []): LockView =>
  lock(at, ttlMs, holders, { kind: 'rw', mode, readers });

/** Events without key/at, which are the same for every row. */
const events = (prev: LockView, next: LockView) => deriveLockEvents(prev, next).map(({ key: _k, at: _a, ...e }) => e);

describe('deriveLockEvents', () => {
  const table: [string, LockView, LockView, ReturnType<typeof events>][] = [
    ['nothing changed but the countdown', lock(0, 30_000, [holder(A)]), lock(1000, 29_000, [holder(A)]), []],
    ['a free key is taken', missing(0), lock(1000, 30_000, [holder(A)]), [{ type: 'acquired', owner: A, count: 1, fromQueue: false }]],
    ['re-entered: hold count goes up (its TTL reset is no renewal)', lock(0, 10_000, [holder(A)]), lock(1000, 30_000, [holder(A, 2)]), [
      { type: 'acquired', owner: A, count: 2, fromQueue: false },
    ]],
    ['one of two holds given back', lock(0, 30_000, [holder(A, 2)]), lock(1000, 29_000, [holder(A)]), [{ type: 'released', owner: A, remaining: 1 }]],
    ['released with plenty of TTL left', lock(0, 20_000, [holder(A)]), missing(1000), [{ type: 'released', owner: A, remaining: 0 }]],
    ['gone after its TTL ran out: expired', lock(0, 900, [holder(A)]), missing(1000), [{ type: 'expired', owner: A, role: 'holder' }]],
    ['expired and immediately taken by someone else', lock(0, 800, [holder(A)]), lock(1000, 30_000, [holder(B)]), [
      { type: 'expired', owner: A, role: 'holder' },
      { type: 'acquired', owner: B, count: 1, fromQueue: false },
    ]],
    ['released early and taken by someone else', lock(0, 20_000, [holder(A)]), lock(1000, 30_000, [holder(B)]), [
      { type: 'released', owner: A, remaining: 0 },
      { type: 'acquired', owner: B, count: 1, fromQueue: false },
    ]],
    ['watchdog renewal: TTL above the countdown', lock(0, 20_000, [holder(A)]), lock(1000, 30_000, [holder(A)]), [{ type: 'renewed', ttlMs: 30_000 }]],
    ['a TTL within jitter of the countdown is no renewal', lock(0, 20_000, [holder(A)]), lock(1000, 19_200, [holder(A)]), []],
    ['token lock: value replaced', lock(0, 5000, [holder('tok-1')], { kind: 'token', type: 'string' }), lock(1000, 10_000, [holder('tok-2')], { kind: 'token', type: 'string' }), [
      { type: 'released', owner: 'tok-1', remaining: 0 },
      { type: 'acquired', owner: 'tok-2', count: 1, fromQueue: false },
    ]],
    ['a waiter joins the fair queue', fair(0, 30_000, [holder(A)], []), fair(1000, 29_000, [holder(A)], [q(B, 0, 5000)]), [{ type: 'joined', owner: B, position: 0 }]],
    ['queue head takes over when the holder releases', fair(0, 30_000, [holder(A)], [q(B, 0, 5000), q(C, 1, 10_000)]), fair(1000, 30_000, [holder(B)], [q(C, 0, 9000)]), [
      { type: 'released', owner: A, remaining: 0 },
      { type: 'acquired', owner: B, count: 1, fromQueue: true },
    ]],
    ['a waiter gives up before its deadline', fair(0, 30_000, [holder(A)], [q(B, 0, 5000)]), fair(1000, 29_000, [holder(A)], []), [{ type: 'left', owner: B }]],
    ['an overdue head is purged', fair(0, 30_000, [holder(A)], [q(B, 0, -1100), q(C, 1, 4000)]), fair(1000, 29_000, [holder(A)], [q(C, 0, 3000)]), [
      { type: 'purged', owner: B },
    ]],
    ['a head whose deadline passes between the snapshots is purged too', fair(0, 30_000, [holder(A)], [q(B, 0, 400)]), fair(1000, 29_000, [holder(A)], []), [
      { type: 'purged', owner: B },
    ]],
    ['readers come and go', rw(0, 30_000, 'read', [reader(A)]), rw(1000, 30_000, 'read', [reader(B)]), [
      { type: 'reader-left', owner: A, remaining: 0 },
      { type: 'reader-joined', owner: B, count: 1 },
    ]],
    ['readers listed among holders get reader events only', rw(0, 30_000, 'read', [reader(A)], [holder(A)]), rw(1000, 30_000, 'read', [reader(A), reader(B)], [holder(A), holder(B)]), [
      { type: 'reader-joined', owner: B, count: 1 },
    ]],
    ['the last reader expires with the key', rw(0, 500, 'read', [reader(A)]), missing(1000), [{ type: 'expired', owner: A, role: 'reader' }]],
    ['read lock renewed', rw(0, 10_000, 'read', [reader(A)]), rw(1000, 30_000, 'read', [reader(A)]), [{ type: 'renewed', ttlMs: 30_000 }]],
    ['reader upgrades to writer: mode changes', rw(0, 30_000, 'read', [reader(A)]), rw(1000, 30_000, 'write', [], [holder(`${A}:write`, 1, { write: true })]), [
      { type: 'reader-left', owner: A, remaining: 0 },
      { type: 'acquired', owner: `${A}:write`, count: 1, fromQueue: false },
      { type: 'mode-changed', from: 'read', to: 'write' },
    ]],
    ['a new warning is reported once', lock(0, 30_000, [holder(A)]), lock(1000, -1, [holder(A)], {
      warnings: [{ code: 'no-ttl', severity: 'error', message: 'no TTL: will never expire' }],
    }), [{ type: 'warning', warning: { code: 'no-ttl', severity: 'error', message: 'no TTL: will never expire' } }]],
  ];

  it.each(table)('%s', (_name, prev, next, expected) => {
    expect(events(prev, next)).toEqual(expected);
  });

  it('stamps every event with the key and the newer snapshot time', () => {
    const [e] = deriveLockEvents(missing(0), lock(1500, 30_000, [holder(A)]));
    expect(e).toMatchObject({ key: 'orders', at: T0 + 1500 });
  });

  it('a warning that persists is not repeated', () => {
    const warnings = [{ code: 'no-ttl', severity: 'error', message: 'no TTL' }] as const;
    expect(events(lock(0, -1, [holder(A)], { warnings }), lock(1000, -1, [holder(A)], { warnings }))).toEqual([]);
  });
});

describe('describeLockEvent', () => {
  const base = { key: 'orders', at: T0 };
  const lines: [LockEvent, string][] = [
    [{ ...base, type: 'acquired', owner: A, count: 1, fromQueue: true }, `acquired by ${A} from the queue`],
    [{ ...base, type: 'acquired', owner: A, count: 3, fromQueue: false }, `${A} holds it again (3 holds)`],
    [{ ...base, type: 'released', owner: A, remaining: 1 }, `${A} released one hold (1 hold left)`],
    [{ ...base, type: 'released', owner: A, remaining: 0 }, `released by ${A}`],
    [{ ...base, type: 'expired', owner: A, role: 'holder' }, `expired: ${A} ran out of lease`],
    [{ ...base, type: 'expired', owner: A, role: 'reader' }, `expired: read lock of ${A} ran out of lease`],
    [{ ...base, type: 'renewed', ttlMs: 30_000 }, 'renewed: TTL back up to 30.0 s'],
    [{ ...base, type: 'joined', owner: B, position: 2 }, `${B} joined the queue at position 3`],
    [{ ...base, type: 'purged', owner: B }, `${B} purged from the queue: its deadline had passed`],
    [{ ...base, type: 'mode-changed', from: 'read', to: 'write' }, 'mode read → write'],
  ];
  it.each(lines)('%j', (event, text) => {
    expect(describeLockEvent(event)).toBe(text);
  });
});
