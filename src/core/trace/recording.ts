// One history format for trace: NDJSON, a header line then one `{"type":"event", ...}` per lock
// event. `--record` writes it, `--json` prints the same event lines (plus findings and the
// summary), and `--from` reads it back, or a saved `redis-cli monitor` log, decoded afresh.

import { UsageError } from '../errors.js';
import { decodeLines, type DecoderOptions } from './decoder.js';
import { eventProblem, printableTime } from './event-shape.js';
import type { TraceEvent } from './events.js';
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

export interface ReadOptions extends DecoderOptions {
  /** The file's name, for errors that point at a line of it: `incident.ndjson:12: ...`. */
  readonly file?: string;
}

/**
 * The events of a saved file: our recording as written, or a MONITOR log decoded now. A line that
 * is neither (cut short, binary, a field of the wrong type, a time no clock can show) is a usage
 * error naming the file and line.
 */
export function readHistory(text: string, opts: ReadOptions = {}): { readonly events: TraceEvent[]; readonly format: 'recording' | 'monitor' } {
  const lines = text.split(/\r?\n/);
  const bad = (i: number, what: string) => new UsageError(`--from ${opts.file ?? 'file'}:${i + 1}: ${what}`);
  const first = lines.find((l) => l.trim() !== '') ?? '';
  if (first.startsWith('{')) return { events: recordedEvents(lines, bad), format: 'recording' };
  const parsed = monitorLines(lines, bad);
  if (parsed.length === 0 && first !== '' && first.trim() !== 'OK') throw new UsageError(`--from: ${opts.file ?? 'the file'} is neither a redlock-cli trace recording nor a \`redis-cli monitor\` log`);
  return { events: decodeLines(parsed, opts), format: 'monitor' };
}

type BadLine = (index: number, what: string) => UsageError;

/** The command lines of a `redis-cli monitor` log (its `OK` and blank lines skipped). */
function monitorLines(lines: readonly string[], bad: BadLine): MonitorLine[] {
  const out: MonitorLine[] = [];
  let unparsed: number | undefined;
  lines.forEach((text, i) => {
    if (text.trim() === '' || text.trim() === 'OK') return;
    const line = parseMonitorLine(text);
    if (!line) unparsed ??= i;
    else if (!printableTime(line.t)) throw bad(i, 'its timestamp is out of range');
    else out.push(line);
  });
  // With no command line at all it is another format altogether: the caller says so.
  if (unparsed !== undefined && out.length > 0) throw bad(unparsed, 'not a MONITOR line (`<time> [<db> <client>] "<command>" ...`): cut short, or not from redis-cli monitor');
  return out;
}

function recordedEvents(lines: readonly string[], bad: BadLine): TraceEvent[] {
  const events: TraceEvent[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw bad(i, 'not JSON; a recording has one JSON object per line');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(i, 'not a JSON object; a recording has one per line');
    const v = value as Readonly<Record<string, unknown>>;
    if (v.type !== 'event') return; // the header, findings and the summary of a --json capture
    const problem = eventProblem(v);
    if (problem) throw bad(i, `not a trace event: ${problem}`);
    const { type: _type, ...event } = v;
    events.push(event as unknown as TraceEvent);
  });
  return events;
}
