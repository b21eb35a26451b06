// Starvation histories shared by the checker's and the incident's tests (server times from T0).
import type { TraceEvent } from '../../../src/core/trace/events.js';

export const T0 = Date.UTC(2026, 10, 28, 14, 3, 7, 0);
const who = (name: string) => ({ owner: `${name.toLowerCase().padEnd(8, name.toLowerCase())}-0000-4000-8000-000000000001:1`, client: { addr: `127.0.0.1:50${name.length}${name.charCodeAt(0)}`, name } });
export const [W, R1, R2, R3, A, B] = ['W', 'R1', 'R2', 'R3', 'A', 'B'].map(who) as [ReturnType<typeof who>, ...ReturnType<typeof who>[]];
export const ev = (kind: TraceEvent['kind'], t: number, x: ReturnType<typeof who>, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + t, lock: 'catalog', library: 'redisson', ...x, ...extra }) as TraceEvent;
export const read = (x: ReturnType<typeof who>, from: number, to: number) => [ev('reader-join', from, x, { shared: true, count: 1, leaseMs: 1000 }), ev('reader-leave', to, x, { shared: true, count: 0 })];
export const byTime = (events: TraceEvent[]) => [...events].sort((a, b) => a.t - b.t);

/** W refused from 0.1 s while reads overlap, overtaken by R2 and R3; it gets the lock at 1.81 s. */
export const OVERTAKEN: TraceEvent[] = byTime([
  ...read(R1!, 0, 600),
  ev('refused', 100, W, { holders: [R1!.owner] }),
  ...read(R2!, 400, 1000),
  ...read(R3!, 800, 1400),
  ev('refused', 1100, W, { holders: [R3!.owner] }),
  ...read(R1!, 1200, 1800),
  ev('acquired', 1810, W, { leaseMs: 1000, count: 1 }),
]);

/** A renews every 100 ms and does nothing else while B is refused from 0.15 s until A releases at 1.45 s. */
export const HUNG: TraceEvent[] = byTime([
  ev('acquired', 0, A!, { leaseMs: 300, count: 1 }),
  ...Array.from({ length: 14 }, (_, i) => ev('renewed', 100 * (i + 1), A!, { leaseMs: 300 })),
  ...[150, 450, 750, 1050, 1350].map((t) => ev('refused', t, B!, { holders: [A!.owner] })),
  ev('released', 1450, A!, { count: 0 }),
  ev('acquired', 1460, B!, { leaseMs: 1000, count: 1 }),
]);
