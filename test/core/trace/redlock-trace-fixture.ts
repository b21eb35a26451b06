// A small trace of 3 Redlock nodes, shared by the tests of its page (core/report) and its terminal
// chart (core/trace): A takes n1 and n2; n2 restarts empty (the trace blind on it, then A's key
// found gone); n3's clock steps 50 ms (its later server times run ahead); B takes n2 and n3 while A
// is within its validity: an overlap through n2. Times in ms after T0.

import type { TraceEvent } from '../../../src/core/trace/events.js';

const T0 = 1_764_064_800_000;
export const NODES = ['10.0.0.1:6379', '10.0.0.2:6379', '10.0.0.3:6379'];
const [N1, N2, N3] = NODES as [string, string, string];
const [A, B] = ['token-of-a', 'token-of-b'];
const client = (port: number) => ({ addr: `127.0.0.1:${port}`, name: port === 5001 ? 'worker-a' : 'worker-b' });
const ev = (ms: number, kind: TraceEvent['kind'], node: string, owner?: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({
  kind,
  t: T0 + ms,
  lock: owner === undefined ? '*' : 'payments',
  node,
  library: 'token',
  ...(owner !== undefined ? { owner, client: client(owner === A ? 5001 : 5002) } : {}),
  ...extra,
});
const take = (ms: number, node: string, owner: string) => ev(ms, 'acquired', node, owner, { leaseMs: 10_000, count: 1 });

export const EVENTS: TraceEvent[] = [
  take(0, N1, A),
  take(1, N2, A),
  ev(100, 'blind', N2),
  ev(300, 'expired', N2, A, { leaseMs: 10_000 }),
  ev(301, 'unblind', N2),
  ev(350, 'clock-step', N3, undefined, { stepMs: 50 }),
  take(400, N2, B),
  // n3's server times after its step run 50 ms ahead.
  take(451, N3, B),
];
