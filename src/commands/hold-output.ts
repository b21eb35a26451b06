import type { ClosableHoldEvents } from '../hold/memory.js';
import type { RunContext } from './context.js';
import { holdJson, holdLine, type HoldLineContext } from './hold-lines.js';
import { safeJson, safeLine } from '../core/terminal-text.js';

/** Where `hold` sends its events and the command's output: event lines, NDJSON, or the live view. */
// close() flushes and, for the live view, unmounts it (its last frame stays on screen). The live
// view shows who holds the lock while we wait; lines and NDJSON do not (so no reads for it).
export type HoldOutput = ClosableHoldEvents;

export interface HoldOutputOptions {
  readonly json: boolean;
  /** A command runs under the lock: its stdout is the result, so our lines move to stderr. */
  readonly withChild: boolean;
}

/**
 * Plain or NDJSON event lines. Without a command they are the result and go to stdout; with one,
 * the command's stdout is the result (`hold k -- pg_dump > dump.sql` must stay clean), so event
 * lines go to stderr and the command's output is passed through untouched.
 */
export function lineOutput(ctx: RunContext, lines: HoldLineContext, opts: HoldOutputOptions): HoldOutput {
  const out = opts.withChild ? ctx.stderr : ctx.stdout;
  return {
    emit: (event) => {
      if (opts.json) {
        const value = holdJson(lines, event);
        if (value) out.write(`${safeJson(JSON.stringify(value))}\n`);
      } else {
        const line = holdLine(lines, event);
        if (line) out.write(`${safeLine(line)}\n`);
      }
    },
    childOutput: (stream, text) => void (stream === 'stdout' ? ctx.stdout : ctx.stderr).write(text),
    close: async () => {},
  };
}

/** The live view wants a real terminal on stdout, and --json always means a stream of lines. */
export function wantsLiveView(ctx: RunContext, json: boolean): boolean {
  return ctx.stdout.isTTY === true && !json;
}

/** Loads ink and react only now: one-shot commands and piped holds never pay for them. */
export async function liveOutput(ctx: RunContext, lines: HoldLineContext, target: string): Promise<HoldOutput> {
  const { mountHoldView } = await import('../ui/hold-live.js');
  return { ...mountHoldView({ stdout: ctx.stdout, stderr: ctx.stderr, stdin: ctx.stdin, identity: { ...lines, target } }), showsWaiting: true };
}
