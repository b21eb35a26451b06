// One history format for trace: NDJSON, a header line then one `{"type":"event", ...}` per lock
// event. `--record` writes it, `--json` prints the same event lines (plus findings and the
// summary), and `--from` reads it back, or a saved `redis-cli monitor` log, decoded afresh.

import { UsageError } from '../errors.js';
import { TraceDecoder, type DecoderOptions } from './decoder.js';
import { eventProblem, printableTime } from './event-shape.js';
import type { TraceEvent } from './events.js';
import { parseMonitorLine } from './monitor-line.js';

export const RECORDING_TYPE = 'redlock-cli-trace';
/**
 * 2 added `nodes` (a trace of independent Redlock primaries, diagnosed with the quorum view);
 * version 1 files read as before. A newer version is refused rather than half understood.
 */
export const RECORDING_VERSION = 2;

export interface RecordingHeader {
  readonly type: typeof RECORDING_TYPE;
  readonly version: 1 | 2;
  /** What was traced, without credentials: `127.0.0.1:6379`, `sentinel mymaster`. */
  readonly source: string;
  /** Local epoch ms the trace started. */
  readonly startedAt: number;
  /** Version 2: Redlock's independent primaries, as the events' `node` names them. */
  readonly nodes?: readonly string[];
}

export const headerLine = (header: Omit<RecordingHeader, 'type' | 'version'>): string => JSON.stringify({ type: RECORDING_TYPE, version: RECORDING_VERSION, ...header });
/** `{"type":"event",...}` (event-json.ts): a recording's event line, and what --json prints for an event. */
export { eventJson } from './event-json.js';

export interface ReadOptions extends DecoderOptions {
  /** The file's name, for errors that point at a line of it: `incident.ndjson:12: ...`. */
  readonly file?: string;
}

/**
 * Reads a saved file line by line, so a file of any size is never held whole: our recording as
 * written, or a MONITOR log decoded as it is read. The first line that is not blank tells the
 * format. A line that is neither (cut short, binary, a field of the wrong type, a time no clock
 * can show) is a usage error naming the file and line; events of the lines before it were
 * already handed out.
 */
export class HistoryReader {
  format: 'recording' | 'monitor' | undefined;
  /** The recording's header line, once read (a `--json` capture and a MONITOR log have none). */
  header: RecordingHeader | undefined;
  private readonly decoder: TraceDecoder;
  private first: string | undefined;
  private parsed = 0;
  /** A line that is not a MONITOR line, before any that is: the file may be another format altogether. */
  private unparsed: number | undefined;

  constructor(private readonly opts: ReadOptions = {}) {
    this.decoder = new TraceDecoder(opts);
  }

  /** Line `index` (from 0) of the file, without its line break; returns the events it completed. */
  line(text: string, index: number): readonly TraceEvent[] {
    if (this.format === undefined) {
      if (isBlank(text)) return NONE;
      this.first = text.trim();
      this.format = text.startsWith('{') ? 'recording' : 'monitor';
    }
    return this.format === 'recording' ? recordedEvent(text, index, this.bad, (h) => (this.header = h)) : this.monitorLine(text, index);
  }

  /** The end of the file: completes a script run the log ended in. */
  end(): readonly TraceEvent[] {
    if (this.format !== 'monitor') return NONE;
    if (this.parsed === 0 && this.first !== 'OK') throw new UsageError(`--from: ${this.opts.file ?? 'the file'} is neither a redlock-cli trace recording nor a \`redis-cli monitor\` log`);
    return this.decoder.flush();
  }

  private readonly bad = (index: number, what: string) => new UsageError(`--from ${this.opts.file ?? 'file'}:${index + 1}: ${what}`);

  /** A command line of a `redis-cli monitor` log (its `OK` and blank lines skipped). */
  private monitorLine(text: string, index: number): readonly TraceEvent[] {
    const line = parseMonitorLine(text);
    if (!line) {
      if (isBlank(text) || text.trim() === 'OK') return NONE;
      if (this.parsed > 0) throw this.notMonitor(index);
      this.unparsed ??= index;
      return NONE;
    }
    if (this.unparsed !== undefined) throw this.notMonitor(this.unparsed);
    if (!printableTime(line.t)) throw this.bad(index, 'its timestamp is out of range');
    this.parsed++;
    return this.decoder.push(line);
  }

  private notMonitor(index: number): UsageError {
    return this.bad(index, 'not a MONITOR line (`<time> [<db> <client>] "<command>" ...`): cut short, or not from redis-cli monitor');
  }
}

/** The events of a whole saved file held as text (tests, small files): see HistoryReader. */
export function readHistory(text: string, opts: ReadOptions = {}): { readonly events: TraceEvent[]; readonly format: 'recording' | 'monitor' } {
  const reader = new HistoryReader(opts);
  const events: TraceEvent[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    for (const e of reader.line(line, i)) events.push(e);
  });
  for (const e of reader.end()) events.push(e);
  return { events, format: reader.format ?? 'monitor' };
}

type BadLine = (index: number, what: string) => UsageError;

/** The header's fields checked: a version this reader knows, and nodes as a list of names. */
function checkedHeader(v: Readonly<Record<string, unknown>>, i: number, bad: BadLine): RecordingHeader {
  if (v.version !== 1 && v.version !== 2) throw bad(i, `a recording of version ${JSON.stringify(v.version)}; this redlock-cli reads versions 1 and 2: upgrade it to read this file`);
  if (v.nodes !== undefined && !(Array.isArray(v.nodes) && v.nodes.length > 0 && v.nodes.every((n) => typeof n === 'string'))) throw bad(i, 'the header\'s "nodes" must be a list of node names');
  return v as unknown as RecordingHeader;
}

const NONE: readonly TraceEvent[] = [];
const isBlank = (text: string) => text.length === 0 || text.trim() === '';

function recordedEvent(line: string, i: number, bad: BadLine, header: (h: RecordingHeader) => void): readonly TraceEvent[] {
  if (isBlank(line)) return NONE;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw bad(i, 'not JSON; a recording has one JSON object per line');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(i, 'not a JSON object; a recording has one per line');
  const v = value as Readonly<Record<string, unknown>>;
  if (v.type === RECORDING_TYPE) header(checkedHeader(v, i, bad));
  if (v.type !== 'event') return NONE; // the header, findings and the summary of a --json capture
  const problem = eventProblem(v);
  if (problem) throw bad(i, `not a trace event: ${problem}`);
  const { type: _type, ...event } = v;
  return [event as unknown as TraceEvent];
}
