import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { UsageError } from '../core/errors.js';
import type { Finding } from '../core/trace/checker.js';
import { isNodeEvent, type TraceEvent } from '../core/trace/events.js';
import { HistoryReader } from '../core/trace/recording.js';
import { TraceSession } from '../core/trace/session.js';

// `trace --from FILE`: the file is read in chunks and each line decoded, diagnosed and handed on
// as it comes, so memory is bounded by the live locks and owners (the decoder's model, the
// session's tallies and recent window), never by the size of the file, and time is linear in it.

export interface ReplayOptions {
  readonly file: string;
  readonly wants: (lock: string) => boolean;
  /** Called with each line's events (those of wanted locks, and node events) and the findings they completed. */
  readonly onEvents: (events: readonly TraceEvent[], found: readonly Finding[]) => void;
  /** Asked after each chunk: a promise to wait for before the next (the output is behind). */
  readonly drained?: () => Promise<void> | undefined;
  /** The session keeps the most recent events for a chart (default true; --json draws none). */
  readonly chart?: boolean;
}

/** Reads the whole file through a session; resolves with it at the end of the file. */
export async function replayFile(opts: ReplayOptions): Promise<TraceSession> {
  const reader = new HistoryReader({ wants: opts.wants, file: opts.file });
  // Made at the first events, after the header: a recording of Redlock nodes is checked with its quorum view.
  let made: TraceSession | undefined;
  const session = () => (made ??= new TraceSession({ redlockNodes: reader.header?.nodes }, opts.chart === false ? 0 : undefined));
  const shown = (e: TraceEvent) => isNodeEvent(e) || opts.wants(e.lock);
  const take = (events: readonly TraceEvent[]) => {
    if (events.length === 0) return;
    // Nearly always every event is shown: the list is copied only when one is not.
    const kept = events.every(shown) ? events : events.filter(shown);
    opts.onEvents(kept, session().push(kept));
  };
  let index = 0;
  await eachLine(opts.file, (line) => take(reader.line(line, index++)), opts.drained);
  take(reader.end());
  return session();
}

/**
 * Calls `fn` with each line of a file, without its break (`\n` or `\r\n`), read in chunks of bytes;
 * the lines of a chunk are handled in one go (no promise per line). Each line becomes a string of
 * its own: text cut from a whole chunk's string would keep that chunk in memory for as long as any
 * piece of it (a client's address, a lock's name) is remembered.
 */
async function eachLine(file: string, fn: (line: string) => void, drained?: () => Promise<void> | undefined): Promise<void> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  // A chunk of ASCII (every MONITOR log: the server escapes any other byte) is read as latin1,
  // which is that text without UTF-8's checks; any other chunk (a recording's names) as UTF-8.
  let encoding: 'latin1' | 'utf8' = 'utf8';
  const line = (bytes: Buffer, from: number, to: number) => fn(bytes.toString(encoding, from, to > from && bytes[to - 1] === CR ? to - 1 : to));
  let rest: Buffer | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const bytes = rest ? Buffer.concat([rest, chunk]) : chunk;
      encoding = isAscii(bytes) ? 'latin1' : 'utf8';
      let from = 0;
      for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, from)) {
        line(bytes, from, at);
        from = at + 1;
      }
      rest = from < bytes.length ? bytes.subarray(from) : undefined;
      await drained?.();
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (err instanceof UsageError || typeof e.code !== 'string') throw err;
    throw new UsageError(`--from: cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  } finally {
    stream.destroy();
  }
  if (rest) {
    encoding = isAscii(rest) ? 'latin1' : 'utf8';
    line(rest, 0, rest.length);
  }
}

const [LF, CR] = [10, 13];
