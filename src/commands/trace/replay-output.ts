import type { Finding } from '../../core/trace/checker.js';
import type { TraceEvent } from '../../core/trace/events.js';
import { eventLine, findingLine } from '../../core/trace/format.js';
import { eventLines } from '../../core/trace/recording.js';
import { safeJson, safeLine } from '../../core/terminal-text.js';
import type { CommandContext } from '../context.js';

// The output of `trace --from` as it is decoded: events and findings in the order they came, tens
// of kilobytes a write (a write per line costs more than the decoding), so neither the file nor
// its output is ever held: when a pipe's reader is slower, reading waits for it (drained()). With --json, events wait in a batch until one JSON.stringify
// writes them all (eventLines): a finding, or a full batch, sends the batch first.

// Both bounds keep every string made here under V8's large-object size (128 KiB): a larger one
// is freed only by a full collection, and a fast reader made them faster than those ran (667 MB RSS).
/** Events serialised together (about 150 characters each). */
const BATCH_EVENTS = 256;
/** Characters gathered before a write. */
const WRITE_CHARS = 64 * 1024;

export class ReplayOutput {
  private batch: TraceEvent[] = [];
  private text: string[] = [];
  private chars = 0;
  /** The last write was queued in memory: the reader waits for the stream to drain before it goes on. */
  private queued = false;

  constructor(
    private readonly ctx: CommandContext,
    private readonly json: boolean,
  ) {}

  /** One line's events and the findings they completed. */
  add(events: readonly TraceEvent[], found: readonly Finding[]): void {
    if (!this.json) {
      for (const e of events) this.push(safeLine(eventLine(e)));
      for (const f of found) this.push(safeLine(findingLine(f)));
      return;
    }
    for (const e of events) this.batch.push(e);
    if (this.batch.length >= BATCH_EVENTS || found.length > 0) this.serialise();
    // JSON lines through safeJson: safeLine would write a C1 control as \x85, which is not JSON.
    for (const f of found) this.push(safeJson(JSON.stringify({ type: 'finding', ...f })));
  }

  /** Writes everything gathered. */
  flush(): void {
    this.serialise();
    if (this.text.length === 0) return;
    this.queued = this.ctx.stdout.write(`${this.text.join('\n')}\n`) === false;
    this.text = [];
    this.chars = 0;
  }

  /** Resolves when what was written has left memory (at once when nothing is queued). */
  drained(): Promise<void> | undefined {
    const { stdout } = this.ctx;
    if (!this.queued || !stdout.once) return undefined;
    this.queued = false;
    return new Promise((resolve) => stdout.once?.('drain', resolve));
  }

  private serialise(): void {
    if (this.batch.length === 0) return;
    const lines = eventLines(this.batch);
    this.batch = [];
    this.push(safeJson(lines));
  }

  private push(text: string): void {
    this.text.push(text);
    this.chars += text.length;
    if (this.chars >= WRITE_CHARS) this.flush();
  }
}
