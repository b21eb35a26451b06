// Lanes cut into a fixed number of columns, one cell each: the text chart and the ink swimlane
// only choose glyphs and colours for these cells. A column shows the most telling thing that
// happened in it, so a 20 ms critical section or a write stays visible on a 3 s axis.

import { CLIENT_STATES, type ClientState, type Lanes, type MarkKind, type NodeFault, type ViolationWindow } from './timeline.js';

export interface ClientCell {
  readonly state: ClientState;
  readonly holds: boolean;
  readonly mark?: MarkKind;
  /** This client is named by a violation whose window covers the column. */
  readonly violation: boolean;
}

export interface NodeCell {
  readonly fault?: NodeFault;
  /** Who the server said held the lock on this node for most of the column (empty: nobody, or not read yet). */
  readonly holders: readonly string[];
  readonly mark?: MarkKind;
}

/** `undefined` cells lie after the end (live: not happened yet). */
export interface Raster {
  readonly width: number;
  readonly spanMs: number;
  readonly clients: readonly { readonly name: string; readonly cells: readonly (ClientCell | undefined)[] }[];
  readonly nodes: readonly { readonly name: string; readonly cells: readonly (NodeCell | undefined)[] }[];
  /** Per column, the first violation kind whose window covers it. */
  readonly violations: readonly (ViolationWindow['kind'] | undefined)[];
  /** Axis labels in seconds at round times: `{ col: 10, label: '0.5' }`. */
  readonly ticks: readonly { readonly col: number; readonly label: string }[];
}

// Marks drawn on a lane, most telling first; release-ok and plain notes show in the log only
// (the end of the bar already says "released").
const MARK_ORDER: readonly MarkKind[] = ['lost', 'write-rejected', 'release-fail', 'fault-fail', 'write-ok', 'incr', 'acquire-fail', 'renew-fail', 'fault', 'renew-ok'];
const FAULT_ORDER: readonly NodeFault[] = ['killed', 'paused', 'partitioned', 'blind'];

/** Cuts the lanes into `width` columns over [0, spanMs]. */
export function rasterize(lanes: Lanes, width: number, spanMs: number = Math.max(lanes.end, 1)): Raster {
  const w = Math.max(1, Math.floor(width));
  const span = Math.max(1, spanMs);
  const col = (i: number) => ({ from: (i * span) / w, to: ((i + 1) * span) / w, last: i === w - 1 });
  const drawn = (i: number) => col(i).from < lanes.end;
  // Intervals overlap a column when they share time; an instant (from == to) counts where it falls.
  const overlaps = (i: number, from: number, to: number) => {
    const c = col(i);
    return from === to ? inColumn(c, from) : from < c.to && to > c.from;
  };
  const markIn = (i: number, marks: readonly { t: number; kind: MarkKind }[]): MarkKind | undefined => {
    const here = new Set(marks.filter((m) => inColumn(col(i), m.t)).map((m) => m.kind));
    return MARK_ORDER.find((k) => here.has(k));
  };
  const columns = Array.from({ length: w }, (_, i) => i);

  const clients = lanes.clients.map((lane) => ({
    name: lane.name,
    cells: columns.map((i): ClientCell | undefined => {
      if (!drawn(i)) return undefined;
      const segs = lane.segments.filter((s) => overlaps(i, s.from, s.to));
      const top = segs.reduce<(typeof segs)[number] | undefined>((best, s) => (!best || rank(s.state) > rank(best.state) ? s : best), undefined);
      const mark = markIn(i, lane.marks);
      const violation = lanes.violations.some((v) => v.clients.includes(lane.name) && overlaps(i, v.from, v.to));
      return { state: top?.state ?? 'idle', holds: segs.some((s) => s.holds), violation, ...(mark ? { mark } : {}) };
    }),
  }));

  const nodes = lanes.nodes.map((lane) => ({
    name: lane.name,
    cells: columns.map((i): NodeCell | undefined => {
      if (!drawn(i)) return undefined;
      const faults = new Set(lane.faults.filter((f) => overlaps(i, f.from, f.to)).map((f) => f.fault));
      const fault = FAULT_ORDER.find((f) => faults.has(f));
      // The reading that covers most of the column: A until 1010 and B from 1021 is not "A and B".
      const c = col(i);
      const cover = (h: { from: number; to: number }) => Math.min(h.to, c.to) - Math.max(h.from, c.from);
      const reading = lane.holders.filter((h) => overlaps(i, h.from, h.to)).reduce<(typeof lane.holders)[number] | undefined>((best, h) => (!best || cover(h) > cover(best) ? h : best), undefined);
      const holders = reading?.holders ?? [];
      const mark = markIn(i, lane.marks);
      return { holders, ...(fault ? { fault } : {}), ...(mark ? { mark } : {}) };
    }),
  }));

  const violations = columns.map((i) => lanes.violations.find((v) => overlaps(i, v.from, v.to))?.kind);
  return { width: w, spanMs: span, clients, nodes, violations, ticks: ticks(w, span) };
}

function inColumn(c: { from: number; to: number; last: boolean }, t: number): boolean {
  return t >= c.from && (t < c.to || (c.last && t <= c.to));
}

const rank = (s: ClientState): number => CLIENT_STATES.indexOf(s);

/** Round-number axis labels spaced at least 8 columns apart. */
function ticks(width: number, span: number): { col: number; label: string }[] {
  const minGap = 8;
  const steps = [1, 2, 5].flatMap((m) => [1, 10, 100, 1000, 10_000, 100_000, 1_000_000].map((p) => m * p)).sort((a, b) => a - b);
  const step = steps.find((s) => (s / span) * width >= minGap) ?? span;
  const decimals = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
  const out: { col: number; label: string }[] = [];
  for (let t = 0; t <= span; t += step) {
    const label = String(Number((t / 1000).toFixed(decimals)));
    const c = Math.round((t / span) * width);
    if (c + label.length <= width) out.push({ col: c, label });
  }
  return out;
}

/** A span that grows in round steps (1, 2, 5 × 10^n ms) so a live axis rescales rarely. */
export function roundSpan(ms: number, minMs = 1000): number {
  const target = Math.max(ms, minMs);
  let unit = 1;
  while (unit * 10 <= target) unit *= 10;
  return [1, 2, 5, 10].map((m) => m * unit).find((s) => s >= target) ?? 10 * unit;
}
