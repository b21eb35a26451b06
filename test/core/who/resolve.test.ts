import { describe, expect, it } from 'vitest';
import type { LockView } from '../../../src/core/lock-view.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { parseClientList } from '../../../src/core/who/connections.js';
import type { RememberedWriter, WhoFacts, WhoLock } from '../../../src/core/who/model.js';
import { ownerLabel } from '../../../src/core/who/owner-label.js';
import { resolveWho } from '../../../src/core/who/resolve.js';
import { chainLines, formatWho } from '../../../src/core/who/text.js';
import { WriterCollector } from '../../../src/core/who/writers.js';

// The pure half of `who`: CLIENT LIST read, owners tied to connections, liveness, chains and text.

const A = '00000000-0000-4000-8000-00000000000a';
const view = (key: string, over: Partial<LockView> = {}): LockView => ({
  key,
  kind: 'reentrant',
  type: 'hash',
  ttlMs: 12_000,
  holders: [{ owner: `${A}:1`, client: A, thread: '1', count: 1 }],
  waiters: 0,
  warnings: [],
  readAt: 0,
  ...over,
});
const conn = (addr: string, name = '', extra = '') => `id=${addr.slice(-2)} addr=${addr} laddr=127.0.0.1:6379 fd=8 name=${name} age=12 idle=3 flags=N db=0 sub=0 psub=0 ssub=0${extra} cmd=evalsha`;
const ev = (kind: TraceEvent['kind'], lock: string, owner: string, addr: string, over: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: 1, lock, owner, client: { addr }, ...over });
const facts = (over: Partial<WhoFacts>): WhoFacts => ({ views: [], events: [], connections: [], remembered: [], ...over });
const remembered = (key: string, owner: string, addr: string, name?: string): RememberedWriter => ({ target: 't', key, owner, addr, name, at: 1 });

describe('CLIENT LIST', () => {
  it('reads address, name, library, age, idle and subscriptions; an empty name is none', () => {
    const [c, d] = parseClientList(`${conn('127.0.0.1:50001', 'worker-a', ' lib-name=redis-py lib-ver=5.0.1')}\n${conn('127.0.0.1:50002').replace('sub=0', 'sub=2')}\n`);
    expect(c).toEqual({ id: '01', addr: '127.0.0.1:50001', name: 'worker-a', libName: 'redis-py', libVer: '5.0.1', ageMs: 12_000, idleMs: 3000, subscriptions: 0, cmd: 'evalsha' });
    expect([d!.name, d!.subscriptions]).toEqual([undefined, 2]);
  });
});

describe('liveness of a holder', () => {
  const lock = (f: Partial<WhoFacts>): WhoLock => resolveWho(facts({ views: [view('k')], ...f })).locks[0]!;

  it('its connection is listed: alive, described by CLIENT LIST', () => {
    const l = lock({ events: [ev('renewed', 'k', `${A}:1`, '127.0.0.1:50001')], connections: parseClientList(conn('127.0.0.1:50001', 'w')) });
    expect(l.holders[0]!.liveness).toEqual({ state: 'alive' });
    expect(l.holders[0]!.connection).toEqual({ addr: '127.0.0.1:50001', name: 'w', ageMs: 12_000, idleMs: 3000, gone: false, libName: undefined, libVer: undefined });
  });

  it('its connection is gone and nobody renews: it frees when the lease runs out', () => {
    const l = lock({ remembered: [remembered('k', `${A}:1`, '127.0.0.1:50001', 'w')] });
    expect([l.holders[0]!.via, l.holders[0]!.liveness]).toEqual(['trace-memory', { state: 'gone', freesInMs: 12_000 }]);
    expect(formatWho({ locks: [l], chains: [], sample: { ms: 0, endedEarly: false }, limits: [], readAt: 0 })[2]).toBe("    holder's connection is gone; frees in 12.0 s");
  });

  it('its connection is gone but another one renews: that one is the zombie renewer', () => {
    const l = lock({
      remembered: [remembered('k', `${A}:1`, '127.0.0.1:50001')],
      events: [ev('renewed', 'k', `${A}:1`, '127.0.0.1:50009')],
      connections: parseClientList(conn('127.0.0.1:50009', 'leaked-watchdog')),
    });
    expect(l.holders[0]!.liveness).toMatchObject({ state: 'zombie-renewer', renewer: { addr: '127.0.0.1:50009', name: 'leaked-watchdog' }, freesInMs: 12_000 });
  });

  it('an overwrite SET by the holder (node-redlock extend, sample begun after the acquire) is a renewal, not the acquirer', () => {
    const l = lock({
      views: [view('k', { kind: 'token', type: 'string', holders: [{ owner: 'tok', count: 1 }], library: 'node-redlock' })],
      remembered: [remembered('k', 'tok', '127.0.0.1:50001')],
      events: [ev('acquired', 'k', 'tok', '127.0.0.1:50009', { overwrite: true, holders: [] })],
      connections: parseClientList(conn('127.0.0.1:50009')),
    });
    expect([l.holders[0]!.connection?.addr, l.holders[0]!.liveness.state]).toEqual(['127.0.0.1:50001', 'zombie-renewer']);
  });

  it('without CLIENT LIST: unknown, and a party nobody saw: unresolved (ShedLock: its stored host)', () => {
    expect(lock({ events: [ev('renewed', 'k', `${A}:1`, '127.0.0.1:50001')], connections: undefined }).holders[0]!.liveness).toEqual({ state: 'unknown' });
    const shed = lock({ views: [view('k', { kind: 'token', holders: [{ owner: 'ADDED:2026-11-28T01:00:00.000Z@web-3', count: 1 }] })] }).holders[0]!;
    expect([shed.via, shed.label, shed.liveness.state]).toEqual(['owner-label', 'web-3', 'unresolved']);
    expect(ownerLabel('6f1c2a44')).toBeUndefined();
  });
});

describe('waiters', () => {
  it('the fair queue in order, then pollers whose newest attempt failed; one that got it or left is none', () => {
    const q = (owner: string, position: number) => ({ owner, position, deadlineInMs: 1000 });
    const v = view('k', { kind: 'fair', queue: [q('q1', 0), q('q2', 1)] });
    const { locks } = resolveWho(
      facts({
        views: [v],
        events: [ev('queue-join', 'k', 'q2', '127.0.0.1:50002'), ev('refused', 'k', 'p1', '127.0.0.1:50003'), ev('refused', 'k', 'p2', '127.0.0.1:50004'), ev('released', 'k', 'p2', '127.0.0.1:50004')],
        connections: undefined,
      }),
    );
    expect(locks[0]!.waiters.map((w) => [w.owner, w.position, w.connection?.addr])).toEqual([
      ['q1', 0, undefined],
      ['q2', 1, '127.0.0.1:50002'],
      ['p1', undefined, '127.0.0.1:50003'],
    ]);
  });
});

describe('blocked-by chains', () => {
  const at = (port: number) => `127.0.0.1:${port}`;
  const token = (key: string, holderAddr: string, waiterAddr?: string): { view: LockView; events: TraceEvent[] } => ({
    view: view(key, { kind: 'token', holders: [{ owner: `h-${key}`, count: 1 }] }),
    events: [ev('renewed', key, `h-${key}`, holderAddr), ...(waiterAddr ? [ev('refused', key, `w-${key}`, waiterAddr)] : [])],
  });
  const chains = (...locks: ReturnType<typeof token>[]) => resolveWho(facts({ views: locks.map((l) => l.view), events: locks.flatMap((l) => l.events), connections: undefined })).chains;

  it('A waits for B, who waits for C: drawn as a staircase; a single wait is no chain', () => {
    const found = chains(token('x', at(2), at(1)), token('y', at(3), at(2)));
    expect(found.flatMap(chainLines)).toEqual([`  ${at(1)} waits for x`, `  └─ held by ${at(2)}, who waits for y`, `    └─ held by ${at(3)}`]);
    expect(chains(token('x', at(2), at(1)))).toEqual([]);
  });

  it('a deadlock (A waits for B, B waits for A) is drawn once, as a cycle', () => {
    const found = chains(token('x', at(2), at(1)), token('y', at(1), at(2)));
    expect(found).toHaveLength(1);
    expect(found[0]!.cycle).toBe(true);
    expect(chainLines(found[0]!).at(-1)).toMatch(/: back to the start, a deadlock$/);
  });

  it('Redisson parties without a connection are joined by their client id across locks', () => {
    const B = '00000000-0000-4000-8000-00000000000b';
    const x = view('x', { holders: [{ owner: `${B}:7`, count: 1 }], queue: [{ owner: `${A}:1`, position: 0, deadlineInMs: 1 }], kind: 'fair' });
    const y = view('y', { holders: [{ owner: `${A}:9`, count: 1 }], queue: [{ owner: `${B}:3`, position: 0, deadlineInMs: 1 }], kind: 'fair' });
    const z = view('z', { holders: [{ owner: 'zz', count: 1 }], queue: [{ owner: `${A}:4`, position: 0, deadlineInMs: 1 }], kind: 'fair' });
    expect(resolveWho(facts({ views: [x, y, z], connections: undefined })).chains.map((c) => c.cycle)).toEqual([true]);
  });
});

describe('the owner directory a trace fills', () => {
  it('keeps the acquirer: later renewals from another connection never replace it', () => {
    const w = new WriterCollector('127.0.0.1:6379');
    w.observe([ev('acquired', 'k', 'o', '127.0.0.1:50001'), ev('renewed', 'k', 'o', '127.0.0.1:50009'), ev('renewed', 'k', 'o2', '127.0.0.1:50009')]);
    expect(w.entries().map((e) => [e.owner, e.addr])).toEqual([
      ['o', '127.0.0.1:50001'],
      ['o2', '127.0.0.1:50009'],
    ]);
  });
});
