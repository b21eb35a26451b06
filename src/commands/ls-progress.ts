import type { ScanProgress } from '../inspect/scan-locks.js';
import type { RunContext } from './context.js';

// "scanning 127.0.0.1:6379: 120,000 keys, 35 locks" on stderr while a big keyspace is walked.
// Only on a terminal (a log file would fill with carriage returns), at most a few times a second,
// and only once a scan has run long enough for a person to wonder.

const EVERY_MS = 200;
const AFTER_MS = 300;
const CLEAR = '\r\x1b[2K';

export interface Progress {
  update(p: ScanProgress): void;
  /** Wipes the line, so results and messages start on a clean one. */
  done(): void;
}

export function scanProgress(ctx: RunContext, what = 'locks', now: () => number = Date.now): Progress {
  if (ctx.stderr.isTTY !== true) return { update: () => {}, done: () => {} };
  const started = now();
  let last = 0;
  let shown = false;
  return {
    update(p) {
      const t = now();
      if (t - started < AFTER_MS || t - last < EVERY_MS) return;
      last = t;
      shown = true;
      ctx.stderr.write(`${CLEAR}scanning ${p.node}: ${p.scanned.toLocaleString('en-US')} keys, ${p.found.toLocaleString('en-US')} ${what}`);
    },
    done() {
      if (shown) ctx.stderr.write(CLEAR);
      shown = false;
    },
  };
}
