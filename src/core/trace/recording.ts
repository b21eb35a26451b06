// One history format for trace: NDJSON, a header line then one `{"type":"event", ...}` per lock
// event. `--record` writes it, `--json` prints the same event lines (plus findings and the
// summary), and `--from` reads it back, or a saved `redis-cli monitor` log, decoded afresh.

import { UsageError } from '../errors.js';
import { decodeLines, type DecoderOptions } from './decoder.js';
import { TRACE_EVENT_KINDS, type TraceEvent } from './events.js';
import { parseMonitorLine, type MonitorLine } from './monitor-line.js';

export const RECORDING_TYPE = 'redlock-cli-trace';

export interface RecordingHeader {
  readonly type: typeof RECORDING_TYPE;
  readonly version: 1;
  /** What was traced, without credentials: `127.0.0.1:6379`, `sentinel mymaster`. */
  readonly source: string;
  /** Local epoch ms the trace started. */
  readonly startedAt: number;
}

export const headerLine = (header: Omit<RecordingHeader, 'type' | 'version'>): string => JSON.stringify({ type: RECORDING_TYPE, version: 1, ...header });
export const eventJson = (e: TraceEvent): string => JSON.stringify({ type: 'event', ...e });

const KINDS = new Set<string>(TRACE_EVENT_KINDS);

/** The events of a saved file: our recording as written, or a MONITOR log decoded now. */
export function readHistory(text: string, opts: DecoderOptions = {}): { readonly events: TraceEvent[]; readonly format: 'recording' | 'monitor' } {
  const lines = text.split(/\r?\n/);
  const first = lines.find((l) => l.trim() !== '') ?? '';
  if (first.startsWith('{')) return { events: recordedEvents(lines), format: 'recording' };
  const parsed = lines.map(parseMonitorLine).filter((l): l is MonitorLine => l !== undefined);
  if (parsed.length === 0 && first !== '' && first.trim() !== 'OK') throw new UsageError('--from: the file is neither a redlock-cli trace recording nor a `redis-cli monitor` log');
  return { events: decodeLines(parsed, opts), format: 'monitor' };
}

function recordedEvents(lines: readonly string[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`--from: line ${i + 1} is not JSON; a recording has one JSON object per line`);
    }
    const v = value as { type?: unknown; kind?: unknown; t?: unknown; lock?: unknown };
    if (v.type !== 'event') return; // the header, findings and the summary of a --json capture
    if (typeof v.kind !== 'string' || !KINDS.has(v.kind) || typeof v.t !== 'number' || typeof v.lock !== 'string') {
      throw new UsageError(`--from: line ${i + 1} is not a trace event (needs kind, t and lock)`);
    }
    const { type: _type, ...event } = value as TraceEvent & { type: string };
    events.push(event);
  });
  return events;
}
