// `inspect <key...> --watch`: the inspect command's live half. The inspect command owns decoding
// and hands over a `read` (one round trip for all keys); this module parses the watch flags and
// says where ticks go (ink view on a terminal, NDJSON with --json); the loop is inspect/watch.ts.

import type { Command } from 'commander';
import { optionalCount } from '../../core/count.js';
import { UsageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import type { LockView } from '../../core/lock-view.js';
import { DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS } from '../../core/poller.js';
import { runWatch, WATCH_CONNECTION_NAME } from '../../inspect/watch.js';
import type { Connection } from '../../redis/connection.js';
import type { TargetSpec } from '../../redis/target.js';
import { note, type RunContext } from '../context.js';
import { liveOutput, ndjsonOutput } from './watch-output.js';
import { durationFlag } from '../options.js';

/** --count: stop after this many reads. */
const COUNT_BOUNDS = { min: 1, max: 1_000_000_000 } as const;

export interface WatchFlags {
  readonly watch?: boolean;
  readonly interval?: string;
  readonly once?: boolean;
  readonly count?: string;
  readonly json?: boolean;
}

export const WATCH_HELP = `
--watch repaints the keys every --interval (default ${DEFAULT_INTERVAL_MS / 1000}s, at least ${MIN_INTERVAL_MS}ms) with their TTLs
counting down, and logs what changed between reads: acquired, renewed, released, expired,
joined / left the queue, purged. p pauses, q quits (0), Ctrl-C exits 130. Each tick is one
round trip on its own connection (CLIENT SETNAME ${WATCH_CONNECTION_NAME}); if Redis goes away the view
says so, retries, and carries on when it is back. Without a terminal use --once (one snapshot)
or --json (one JSON array of every key per tick, until interrupted or --count reads).`;

/** --watch, --interval, --once, --count on the inspect command. */
export function addWatchOptions(cmd: Command): Command {
  return cmd
    .option('--watch', 'live view: repaint every --interval and log what changed (NDJSON per tick with --json)')
    .option('--interval <duration>', `time between reads with --watch (default ${DEFAULT_INTERVAL_MS / 1000}s, at least ${MIN_INTERVAL_MS}ms)`)
    .option('--once', 'one snapshot and exit, also with --watch')
    .option('--count <n>', 'with --watch: stop after n reads');
}

/** Should the inspect action hand over to runInspectWatch? (--watch, unless --once asks for one snapshot) */
export function wantsWatch(flags: WatchFlags): boolean {
  if (!flags.watch) {
    if (flags.interval !== undefined) throw new UsageError('--interval goes with --watch');
    if (flags.count !== undefined) throw new UsageError('--count goes with --watch');
    return false;
  }
  return flags.once !== true;
}

export interface InspectWatchRequest {
  readonly keys: readonly string[];
  readonly spec: TargetSpec;
  readonly flags: WatchFlags;
  /** One read of every key in one round trip (the inspect command's decoder). */
  readonly read: (conn: Connection) => Promise<readonly LockView[]>;
}

interface WatchPlan {
  readonly intervalMs: number;
  readonly count?: number | undefined;
  readonly json: boolean;
}

function plan(ctx: RunContext, flags: WatchFlags): WatchPlan {
  const json = flags.json === true;
  if (!json && ctx.stdout.isTTY !== true) {
    throw new UsageError('--watch draws a live view and needs a terminal: use --once for one snapshot, or --json for one JSON line per tick');
  }
  const count = optionalCount(flags.count, '--count', COUNT_BOUNDS);
  const asked = durationFlag(flags.interval, '--interval') ?? DEFAULT_INTERVAL_MS;
  if (asked < MIN_INTERVAL_MS) note(ctx, `--interval ${flags.interval} is below the ${MIN_INTERVAL_MS} ms floor: reading every ${MIN_INTERVAL_MS} ms`);
  return { intervalMs: Math.max(asked, MIN_INTERVAL_MS), count, json };
}

/** Runs the watch until q, Ctrl-C / a signal, or --count reads; returns the exit code. */
export function runInspectWatch(ctx: RunContext, req: InspectWatchRequest): Promise<number> {
  const { intervalMs, count, json } = plan(ctx, req.flags);
  return runWatch<readonly LockView[]>({
    spec: req.spec,
    intervalMs,
    signal: ctx.signal,
    read: req.read,
    open: (target, controls) =>
      json ? Promise.resolve(ndjsonOutput(ctx)) : liveOutput(ctx, { keys: req.keys, target, intervalMs, onAction: controls.key }),
    after: (state, controls) => {
      if (state.type === 'ok' && count !== undefined && state.tick >= count) controls.finish(ExitCode.ok);
    },
  });
}
