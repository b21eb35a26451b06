// A Redisson rate limiter as inspect's labelled rows: its settings, then per state (the shared
// one, or each client's) the permits left now and the grants of the current interval. Pure; the
// caller indents and colours (inspect-text.ts).
import { printable } from './decode/escape.js';
import { formatDuration } from './duration.js';
import type { RateLimiterStateView, RateLimiterView } from './lock-view.js';

/** One row: a label ('' continues the row above) and its text. */
export interface LabelledLine {
  readonly label: string;
  readonly text: string;
}

const ttlText = (ms: number): string => (ms === -1 ? 'no TTL' : ms === -2 ? 'absent' : `TTL ${formatDuration(ms)}`);

function settings(r: RateLimiterView): string {
  const who = r.type === 'overall' ? 'overall (every client shares them)' : 'per client (each Redisson client has its own)';
  const keepAlive = r.keepAliveMs > 0 ? `keepAliveTime ${formatDuration(r.keepAliveMs)}` : 'no keepAliveTime';
  return `${r.rate} permits per ${formatDuration(r.intervalMs)}, ${who}, ${keepAlive}`;
}

function stateLines(s: RateLimiterStateView, max: number, elapsed: number): LabelledLine[] {
  const handedOut = s.grants.reduce((sum, g) => sum + g.permits, 0);
  const stored = s.stored === null ? 'nothing taken yet' : `${s.stored} stored, ${ttlText(s.valueTtlMs)}`;
  const back = s.returnablePermits > 0 ? `, ${s.returnablePermits} due back at the next acquisition` : '';
  const lines: LabelledLine[] = [
    ...(s.client === null ? [] : [{ label: 'client', text: printable(s.client) }]),
    { label: 'permits', text: `${s.availableNow} left now (${stored})${back}` },
    { label: 'granted', text: `${handedOut} in this interval, ${s.grants.length} grant(s); permits zset ${ttlText(s.permitsTtlMs)}` },
  ];
  for (const g of s.grants.slice(0, max)) {
    const left = g.returnsInMs - elapsed;
    lines.push({ label: '', text: `${g.permits} permit(s) ${formatDuration(g.agoMs + elapsed)} ago, ${left > 0 ? `back in ${formatDuration(left)}` : 'due back now'}` });
  }
  if (s.grants.length > max) lines.push({ label: '', text: `... and ${s.grants.length - max} more (--json lists all)` });
  return lines;
}

/** The limiter's rows: settings, then every state (at most `max` grants and clients listed). */
export function rateLimiterLines(r: RateLimiterView, max: number, elapsed: number): LabelledLine[] {
  const lines: LabelledLine[] = [{ label: 'rate', text: settings(r) }];
  if (r.type === 'per-client') lines.push({ label: 'clients', text: `${r.states.length} with state` });
  for (const s of r.states.slice(0, max)) lines.push(...stateLines(s, max, elapsed));
  if (r.states.length > max) lines.push({ label: '', text: `... and ${r.states.length - max} more clients (--json lists all)` });
  if (r.type === 'overall' && r.states.length === 0) lines.push({ label: 'permits', text: `${r.rate} left now (nothing taken yet)` });
  return lines;
}
