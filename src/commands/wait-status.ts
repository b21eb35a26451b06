import { printable } from '../core/decode/escape.js';
import { truncateToWidth, widthOf } from '../core/text-layout.js';
import { describeWaiting, type WaitSeen } from '../core/wait-text.js';
import type { WaitProgress } from '../locks/types.js';
import type { RunContext } from './context.js';

// `acquire --wait` on a terminal: one status line on stderr that says who holds the lock, how
// much lease it has left, our place in a fair queue and how long we have waited, redrawn in place
// (carriage return, erase line) every second and after each refused attempt, and erased when the
// wait ends. stdout never sees it; with stderr piped there is no line and no extra read.

const REDRAW_MS = 1000;
const ERASE = '\r\u001b[2K';

export interface WaitStatus {
  /** For WaitOptions.onRefused; undefined when there is no terminal to draw on. */
  readonly onRefused: ((progress: WaitProgress) => void) | undefined;
  /** Erases the line (before the result is printed). */
  stop(): void;
}

export function waitStatusLine(ctx: RunContext, key: string): WaitStatus {
  if (ctx.stderr.isTTY !== true) return { onRefused: undefined, stop: () => {} };
  const startedAt = Date.now();
  let seen: WaitSeen | undefined;
  let drawn = false;
  const draw = (): void => {
    if (!seen) return;
    const text = `waiting for "${printable(key)}" (Ctrl-C gives up): ${describeWaiting(seen, startedAt, Date.now())}`;
    // One column short of the edge: a line that fills it would wrap, and \r would redraw only its tail.
    ctx.stderr.write(`${ERASE}${truncateToWidth(text, widthOf(ctx.stderr) - 1)}`);
    drawn = true;
  };
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  return {
    onRefused: (p) => {
      seen = { holders: p.holders.map((h) => ({ owner: printable(h.owner), count: h.count })), ttlMs: p.ttlMs, queuePosition: p.queuePosition, seenAt: Date.now() };
      draw();
    },
    stop: () => {
      clearInterval(timer);
      if (drawn) ctx.stderr.write(ERASE);
    },
  };
}
