// `inspect <key...> --watch`: the inspect command's live half. The inspect command owns decoding
// and hands over a `read` (one round trip for all keys); this module owns the connection, the
// poller, and where ticks go (ink view on a terminal, NDJSON with --json).

import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { LockView } from '../core/lock-view.js';
import { createPoller, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS } from '../core/poller.js';
import { closeConnection } from '../redis/close.js';
import { connect, type Connection } from '../redis/connection.js';
import type { TargetSpec } from '../redis/target.js';
import type { InspectAction } from '../ui/InspectApp.js';
import { note, type RunContext } from './context.js';
import { liveOutput, ndjsonOutput, type WatchOutput } from './inspect-watch-output.js';
import { durationFlag } from './options.js';

export interface WatchFlags {
  readonly watch?: boolean;
  readonly interval?: string;
  readonly once?: boolean;
  readonly count?: string;
  readonly json?: boolean;
}

export const WATCH_CONNECTION_NAME = 'redlock-cli:watch';

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
  let count: number | undefined;
  if (flags.count !== undefined) {
    count = Number(flags.count);
    if (!Number.isInteger(count) || count < 1) throw new UsageError(`invalid --count "${flags.count}": use a whole number of reads, 1 or more`);
  }
  const asked = durationFlag(flags.interval, '--interval') ?? DEFAULT_INTERVAL_MS;
  if (asked < MIN_INTERVAL_MS) note(ctx, `--interval ${flags.interval} is below the ${MIN_INTERVAL_MS} ms floor: reading every ${MIN_INTERVAL_MS} ms`);
  return { intervalMs: Math.max(asked, MIN_INTERVAL_MS), count, json };
}

/** Runs the watch until q, Ctrl-C / a signal, or --count reads; returns the exit code. */
export async function runInspectWatch(ctx: RunContext, req: InspectWatchRequest): Promise<number> {
  const { intervalMs, count, json } = plan(ctx, req.flags);
  // Loaded here: a one-shot inspect shares this module for its options but never watches.
  const { watchConnection } = await import('../locks/watchdog.js');
  const conn = await connect(req.spec, { mode: 'long-lived', name: WATCH_CONNECTION_NAME });
  let finish!: (code: number) => void;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  const onAbort = (): void => finish(ExitCode.interrupted);
  let out: WatchOutput | undefined;
  let unwatch = (): void => {};
  const poller = createPoller<readonly LockView[]>({
    intervalMs,
    // While ioredis reconnects it would queue the read until Redis is back: fail now, so the
    // view says "retrying" and no reads pile up behind a dead socket.
    fetch: () => (conn.client.status === 'ready' ? req.read(conn) : Promise.reject(new Error(`not connected to ${conn.label}`))),
    onState: (state) => {
      out?.poll(state);
      if (state.type === 'ok' && count !== undefined && state.tick >= count) finish(ExitCode.ok);
    },
  });
  try {
    out = json
      ? ndjsonOutput(ctx)
      : await liveOutput(ctx, { keys: req.keys, target: conn.label, intervalMs, onAction: (action) => onKey(action) });
    unwatch = watchConnection(conn, (event) => {
      out?.connection(event);
      // Back: read now rather than at the end of a backoff of up to 8 s.
      if (event.type === 'reconnected') poller.refresh();
    });
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal?.aborted) onAbort();
    poller.start();
    return await ended;
  } finally {
    poller.stop();
    ctx.signal?.removeEventListener('abort', onAbort);
    unwatch();
    await out?.close();
    await closeConnection(conn);
  }

  function onKey(action: InspectAction): void {
    if (action === 'toggle-pause') poller.togglePause();
    else finish(action === 'quit' ? ExitCode.ok : ExitCode.interrupted);
  }
}
