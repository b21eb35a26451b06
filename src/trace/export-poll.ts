import { createPoller, type Poller } from '../core/poller.js';
import { PollDiff } from '../core/export/poll-events.js';
import type { TraceEvent } from '../core/trace/events.js';
import { collectLocks } from '../inspect/scan-locks.js';
import type { Connection } from '../redis/connection.js';

// `export --source poll`: the keyspace decoded every interval with ls's read-only scan (SCAN in a
// probe script, one snapshot script per lock), each change turned into events by PollDiff. One
// long-lived connection, through the one poller: a scan never overlaps the previous one, and a
// failed one backs off and retries (the connection reconnects by itself).

/** Locks read per poll at most; past it a lock not returned is not taken for gone. */
export const POLL_LOCK_LIMIT = 100_000;

export interface PollFeedOptions {
  readonly conn: Connection;
  readonly pattern: string;
  readonly wants: (lock: string) => boolean;
  readonly intervalMs: number;
  readonly onEvents: (events: readonly TraceEvent[], serverNow: number) => void;
  readonly onStatus: (text: string) => void;
  /** A poll failed (it is retried). */
  readonly onError: () => void;
}

export function startPollFeed(opts: PollFeedOptions): Poller {
  const diff = new PollDiff();
  let failing = false;
  const poller = createPoller({
    intervalMs: opts.intervalMs,
    // A scan of a large keyspace takes longer than a snapshot: bounded by the interval, at least 10 s.
    timeoutMs: Math.max(10_000, opts.intervalMs),
    fetch: async () => {
      const scan = await collectLocks(opts.conn, { pattern: opts.pattern, limit: POLL_LOCK_LIMIT });
      const views = scan.views.filter((v) => opts.wants(v.key));
      const now = Math.max(Date.now(), ...views.map((v) => v.readAt));
      return { events: diff.step(views, now, !scan.limited), now };
    },
    onState: (state) => {
      if (state.type === 'ok') {
        if (failing) opts.onStatus(`${opts.conn.label} answers again: polling again`);
        failing = false;
        opts.onEvents(state.snapshot.events, state.snapshot.now);
      } else if (state.type === 'retrying') {
        opts.onError();
        if (!failing) opts.onStatus(`a poll of ${opts.conn.label} failed (${state.error}); retrying in ${Math.round(state.retryInMs / 1000)} s`);
        failing = true;
      }
    },
  });
  poller.start();
  return poller;
}
