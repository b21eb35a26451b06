// The loop behind `inspect --watch` and `ls --watch`: one long-lived connection named like every
// watch, the one poller (core/poller.ts), the connection's outages, and the ways a watch ends (q,
// Ctrl-C or a signal, --count reads, a Cluster with a primary it cannot read). Where the ticks go
// (the ink view, NDJSON) is the command's; this module loads no UI.

import { ExitCode } from '../core/exit-codes.js';
import { createPoller, type PollState } from '../core/poller.js';
import { closeConnection } from '../redis/close.js';
import { connect, type Connection } from '../redis/connection.js';
import type { TargetSpec } from '../redis/target.js';
import { watchConnection, type ConnectionEvent } from '../redis/watch-connection.js';

export const WATCH_CONNECTION_NAME = 'redlock-cli:watch';

/** The keys of a live watch view: p pauses, q quits (0), Ctrl-C (raw mode swallows its signal) exits 130. */
export type WatchKey = 'toggle-pause' | 'quit' | 'interrupt';

/** What the output (its keys, its view of each tick) may do to the watch. */
export interface WatchControls {
  /** Ends the watch with this exit code. */
  finish(code: number): void;
  /** A key the view read. */
  key(key: WatchKey): void;
}

/** Where the ticks go. */
export interface WatchSink<T> {
  poll(state: PollState<T>): void;
  /** The connection went away or came back; without it, outages show only as failed ticks. */
  connection?(event: ConnectionEvent): void;
  /** Flushes, or unmounts the view leaving its last frame. */
  close(): Promise<void>;
}

export interface WatchRequest<T> {
  readonly spec: TargetSpec;
  readonly intervalMs: number;
  /** A tick that takes longer counts as failed (default: the poller's). */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** One tick's read. */
  readonly read: (conn: Connection) => Promise<T>;
  /** Opens the output once connected (`target` is the server's name) and before the first tick. */
  readonly open: (target: string, controls: WatchControls) => Promise<WatchSink<T>>;
  /** Sees every state after the output did: may end the watch (--count reads, a partial Cluster). */
  readonly after?: ((state: PollState<T>, controls: WatchControls) => void) | undefined;
}

/** Runs the watch until something ends it; returns the exit code (130 on the signal). */
export async function runWatch<T>(req: WatchRequest<T>): Promise<number> {
  const conn = await connect(req.spec, { mode: 'long-lived', name: WATCH_CONNECTION_NAME });
  let finish!: (code: number) => void;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  const onAbort = (): void => finish(ExitCode.interrupted);
  let sink: WatchSink<T> | undefined;
  let unwatch = (): void => {};
  const controls: WatchControls = {
    finish: (code) => finish(code),
    key: (key) => {
      if (key === 'toggle-pause') poller.togglePause();
      else finish(key === 'quit' ? ExitCode.ok : ExitCode.interrupted);
    },
  };
  const poller = createPoller<T>({
    intervalMs: req.intervalMs,
    timeoutMs: req.timeoutMs,
    // While ioredis reconnects it would queue the read until Redis is back: fail now, so the
    // output says "retrying" and no reads pile up behind a dead socket.
    fetch: () => (conn.client.status === 'ready' ? req.read(conn) : Promise.reject(new Error(`not connected to ${conn.label}`))),
    onState: (state) => {
      sink?.poll(state);
      req.after?.(state, controls);
    },
  });
  try {
    sink = await req.open(conn.label, controls);
    if (sink.connection) {
      unwatch = watchConnection(conn, (event) => {
        sink?.connection?.(event);
        // Back: read now rather than at the end of a backoff of up to 8 s.
        if (event.type === 'reconnected') poller.refresh();
      });
    }
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.signal?.aborted) onAbort();
    poller.start();
    return await ended;
  } finally {
    poller.stop();
    req.signal?.removeEventListener('abort', onAbort);
    unwatch();
    await sink?.close();
    await closeConnection(conn);
  }
}
