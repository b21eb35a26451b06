import { formatDuration } from '../../core/duration.js';
import type { LockView } from '../../core/lock-view.js';
import type { WatchSink } from '../../inspect/watch.js';
import type { ConnectionEvent } from '../../redis/watch-connection.js';
import type { MountInspectViewOptions } from '../../ui/inspect-live.js';
import { note, print, type RunContext } from '../context.js';

/** Where `inspect --watch` sends what the poller and the connection report. */
export interface WatchOutput extends WatchSink<readonly LockView[]> {
  connection(event: ConnectionEvent): void;
}

/**
 * `--watch --json`: one JSON array of LockViews per successful tick on stdout, so `jq` sees only
 * snapshots; trouble and recovery are said on stderr.
 */
export function ndjsonOutput(ctx: RunContext): WatchOutput {
  let failing = false;
  return {
    poll: (state) => {
      if (state.type === 'ok') {
        if (failing) note(ctx, 'reading again');
        failing = false;
        print(ctx, JSON.stringify(state.snapshot));
      } else if (state.type === 'retrying') {
        failing = true;
        note(ctx, `could not read: ${state.error}; retrying in ${formatDuration(state.retryInMs)}`);
      }
    },
    connection: (event) =>
      note(ctx, event.type === 'reconnecting' ? `connection to ${event.target} lost: reconnecting` : `reconnected to ${event.target}`),
    close: async () => {},
  };
}

/** What the view needs besides the streams, which come from the context. */
export type LiveWatchOptions = Omit<MountInspectViewOptions, 'stdout' | 'stderr' | 'stdin'>;

/** The ink view, loaded only now: plain `inspect` and `--json` never pay for ink and react. */
export async function liveOutput(ctx: RunContext, opts: LiveWatchOptions): Promise<WatchOutput> {
  const { mountInspectView } = await import('../../ui/inspect-live.js');
  return mountInspectView({ stdout: ctx.stdout, stderr: ctx.stderr, stdin: ctx.stdin, ...opts });
}
