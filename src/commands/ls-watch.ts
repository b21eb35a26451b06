// `ls --watch`: the shared poller re-scans the keyspace and the ink table (loaded only here)
// repaints. One scan per tick on its own long-lived connection, named like every watch.

import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { createPoller, MIN_INTERVAL_MS } from '../core/poller.js';
import { collectLocks, type LockScan, type LockScanOptions } from '../inspect/scan-locks.js';
import { connect } from '../redis/connection.js';
import type { TargetSpec } from '../redis/target.js';
import type { LsAction } from '../ui/LsApp.js';
import type { RunContext } from './context.js';
import { WATCH_CONNECTION_NAME } from './inspect-watch.js';
import { durationFlag } from './options.js';

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

/** Runs the dashboard until q, Ctrl-C or a signal; returns the exit code. */
export async function runLsWatch(ctx: RunContext, req: LsWatchRequest): Promise<number> {
  if (req.json || ctx.stdout.isTTY !== true) {
    throw new UsageError('ls --watch draws a live view and needs a terminal: use ls --json for the same data as NDJSON (run it again to poll)');
  }
  const intervalMs = Math.max(MIN_INTERVAL_MS, durationFlag(req.interval, '--interval') ?? LS_WATCH_INTERVAL_MS);
  const conn = await connect(req.spec, { mode: 'long-lived', name: WATCH_CONNECTION_NAME });
  let finish!: (code: number) => void;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  const onAbort = (): void => finish(ExitCode.interrupted);
  const { mountLsView } = await import('../ui/ls-live.js');
  const view = mountLsView({
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    stdin: ctx.stdin,
    pattern: req.scan.pattern,
    target: conn.label,
    intervalMs,
    onAction: (action: LsAction) => {
      if (action === 'toggle-pause') poller.togglePause();
      else finish(action === 'quit' ? ExitCode.ok : ExitCode.interrupted);
    },
  });
  const poller = createPoller<LockScan>({
    intervalMs,
    timeoutMs: SCAN_TIMEOUT_MS,
    // While ioredis reconnects it would queue the scan until Redis is back: fail now, so the view
    // says "retrying" instead of freezing.
    fetch: () => (conn.client.status === 'ready' ? collectLocks(conn, req.scan) : Promise.reject(new Error(`not connected to ${conn.label}`))),
    onState: view.poll,
  });
  try {
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal?.aborted) onAbort();
    poller.start();
    return await ended;
  } finally {
    poller.stop();
    ctx.signal?.removeEventListener('abort', onAbort);
    await view.close();
    // Nothing to flush on a read-only connection, and QUIT would wait on a server that may be gone.
    conn.client.disconnect();
  }
}
