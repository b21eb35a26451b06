import type { TraceEvent } from '../../../src/core/trace/events.js';

// Histories of stuck locks for the checker's and the incident's tests: three clients, event
// builders (a Redisson hash by default, `tok` for a token lock), times in ms after T0.

export const T0 = Date.UTC(2026, 10, 28, 14, 3, 7, 0);
const who = (name: string, n: number) => ({ owner: `${n}aaaaaaa-0000-4000-8000-00000000000${n}:1`, client: { addr: `127.0.0.1:500${n}`, name } });
export const [A, B, C] = [who('worker-a', 1), who('worker-b', 2), who('worker-c', 3)];
export type Who = ReturnType<typeof who>;

export const ev = (kind: TraceEvent['kind'], t: number, w: Partial<Who>, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + t, lock: 'jobs', library: 'redisson', ...w, ...extra }) as TraceEvent;
export const tok = (kind: TraceEvent['kind'], t: number, w: Partial<Who>, extra: Partial<TraceEvent> = {}) => ev(kind, t, w, { library: 'token', ...extra });
/** `make(t)` every `step` ms from `from` to `to` (inclusive). */
export const every = (from: number, to: number, step: number, make: (t: number) => TraceEvent) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => make(from + i * step));
export const sorted = (events: TraceEvent[]) => events.sort((x, y) => x.t - y.t);

/** A holds a fair lock; B, then C queue behind it (deadlines 3 s apart); A releases at 500 ms. */
export const FAIR_QUEUE: readonly TraceEvent[] = [
  ev('acquired', 0, A, { count: 1, leaseMs: 600 }),
  ev('queue-join', 100, B, { deadline: T0 + 3600 }),
  ev('refused', 100, B, { holders: [A.owner] }),
  ev('queue-join', 200, C, { deadline: T0 + 6600 }),
  ev('refused', 200, C, { holders: [A.owner] }),
  ev('released', 500, A, { count: 0 }),
];
