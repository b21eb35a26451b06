// `ls --watch`: the shared watch loop (inspect/watch.ts) re-scans the keyspace each tick and the
// ink table (loaded only here) repaints. One scan per tick on its own long-lived connection.

import { UsageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import { MIN_INTERVAL_MS } from '../../core/poller.js';
import { collectLocks, type LockScan, type LockScanOptions } from '../../inspect/scan-locks.js';
import type { UnreadNode } from '../../inspect/scan.js';
import { runWatch } from '../../inspect/watch.js';
import type { TargetSpec } from '../../redis/target.js';
import { reportPartial, unreadCollector } from '../cluster-partial.js';
import type { RunContext } from '../context.js';
import { durationFlag } from '../options.js';

/** A scan reads every key: twice the single-key watch's period keeps a big keyspace's load down. */
export const LS_WATCH_INTERVAL_MS = 2000;
/** A scan of millions of keys takes seconds: only a scan this slow counts as failed. */
const SCAN_TIMEOUT_MS = 60_000;

export interface LsWatchRequest {
  readonly spec: TargetSpec;
  readonly scan: LockScanOptions;
  readonly json: boolean;
  readonly interval?: string | undefined;
}

/**
 * Runs the dashboard until q, Ctrl-C or a signal; returns the exit code. On a Cluster with a
 * primary it cannot read, it stops after the first scan that says so, leaving that table on
 * screen, names the primary on stderr and exits 9 (partial), as one-shot ls does: a watch that
 * went on would show a half list as if it were the whole.
 */
export async function runLsWatch(ctx: RunContext, req: LsWatchRequest): Promise<number> {
  if (req.json || ctx.stdout.isTTY !== true) {
    throw new UsageError('ls --watch draws a live view and needs a terminal: use ls --json for the same data as JSON (run it again to poll)');
  }
  const intervalMs = Math.max(MIN_INTERVAL_MS, durationFlag(req.interval, '--interval') ?? LS_WATCH_INTERVAL_MS);
  let unread: readonly UnreadNode[] = [];
  const code = await runWatch<LockScan>({
    spec: req.spec,
    intervalMs,
    timeoutMs: SCAN_TIMEOUT_MS,
    signal: ctx.signal,
    read: async (conn) => {
      const tick = unreadCollector();
      const scan = await collectLocks(conn, { ...req.scan, onUnread: tick.onUnread });
      unread = tick.nodes;
      return scan;
    },
    open: async (target, controls) => {
      const { mountLsView } = await import('../../ui/ls-live.js');
      return mountLsView({
        stdout: ctx.stdout,
        stderr: ctx.stderr,
        stdin: ctx.stdin,
        pattern: req.scan.pattern,
        target,
        intervalMs,
        onAction: controls.key,
      });
    },
    after: (state, controls) => {
      if (state.type === 'ok' && unread.length > 0) controls.finish(ExitCode.partial);
    },
  });
  return code === ExitCode.partial ? reportPartial(ctx, unread, code) : code;
}
