import { Writable } from 'node:stream';
import type { Finding } from '../../core/trace/checker.js';
import { JsonLines } from '../../core/trace/event-json.js';
import type { TraceEvent } from '../../core/trace/events.js';
import { eventLine, findingLine } from '../../core/trace/format.js';
import { safeJson, safeLine } from '../../core/terminal-text.js';
import type { CommandContext } from '../context.js';

// The output of `trace --from` as it is decoded: events and findings in the order they came, tens
// of kilobytes a write (a write per line costs more than the decoding), so neither the file nor
// its output is ever held: when a pipe's reader is slower, reading waits for it (drained()).
// With --json an event's line is written straight into the gathered bytes (event-json.ts).

// The bound keeps every string made here under V8's large-object size (128 KiB): a larger one is
// freed only by a full collection, and a fast reader made them faster than those ran (667 MB RSS).
/** Bytes gathered before a write. */
const WRITE_BYTES = 64 * 1024;

export class ReplayOutput {
  private readonly lines = new JsonLines();
  /** The last write was queued in memory: the reader waits for the stream to drain before it goes on. */
  private queued = false;

  constructor(
    private readonly ctx: CommandContext,
    private readonly json: boolean,
  ) {}

  /** One line's events and the findings they completed. */
  add(events: readonly TraceEvent[], found: readonly Finding[]): void {
    if (this.json) {
      for (const e of events) this.lines.event(e);
      // JSON lines through safeJson: safeLine would write a C1 control as \x85, which is not JSON.
      for (const f of found) this.lines.line(safeJson(JSON.stringify({ type: 'finding', ...f })));
    } else {
      for (const e of events) this.lines.line(safeLine(eventLine(e)));
      for (const f of found) this.lines.line(safeLine(findingLine(f)));
    }
    if (this.lines.size >= WRITE_BYTES) this.flush();
  }

  /** Writes everything gathered. */
  flush(): void {
    if (this.lines.size === 0) return;
    const { stdout } = this.ctx;
    // A Node stream (the process's stdout) takes the UTF-8 bytes as they are: no decoding them to
    // a string for the stream to encode again. Other outputs (a test's capture, the REPL) take text.
    const written = stdout instanceof Writable ? stdout.write(this.lines.takeBytes()) : stdout.write(this.lines.take());
    this.queued = written === false;
  }

  /** Resolves when what was written has left memory (at once when nothing is queued). */
  drained(): Promise<void> | undefined {
    const { stdout } = this.ctx;
    if (!this.queued || !stdout.once) return undefined;
    this.queued = false;
    return new Promise((resolve) => stdout.once?.('drain', resolve));
  }
}
