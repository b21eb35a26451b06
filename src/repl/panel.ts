// The panel's reads: every watched and held key in one snapshot round trip per tick on the
// panel's own connection (CLIENT SETNAME redlock-cli:repl-watch), and the attached sandbox's node
// status on a slower timer of its own (those are other servers, probed by the sandbox library).

import type { InspectKind, LockView } from '../core/lock-view.js';
import { createPoller, type PollState, type Poller } from '../core/poller.js';
import { snapshotKeys, viewOf } from '../inspect/snapshot.js';
import { closeConnection } from '../redis/close.js';
import { connect, type Connection } from '../redis/connection.js';
import { watchConnection } from '../redis/watch-connection.js';
import type { TargetSpec } from '../redis/target.js';
import type { SandboxHandle, SandboxStatus } from '../sandbox/index.js';

export const PANEL_CONNECTION_NAME = 'redlock-cli:repl-watch';
/** Node roles and offsets change slowly and cost a probe per node: read them at most this often. */
export const SANDBOX_INTERVAL_MS = 2000;

export interface PanelOptions {
  readonly spec: TargetSpec;
  readonly intervalMs: number;
  /** The keys to read this tick (watched first, then held). */
  readonly keys: () => readonly string[];
  /** How to read a key whose data alone does not say (a token lock's plain value): `inspect --kind`, per key. */
  readonly kindOf?: ((key: string) => InspectKind | undefined) | undefined;
  readonly onState: (state: PollState<readonly LockView[]>) => void;
  readonly onConnection: (down: boolean) => void;
}

export interface Panel {
  /** Reads now (after a command changed something). */
  refresh(): void;
  togglePause(): boolean;
  close(): Promise<void>;
}

/**
 * Starts polling. The connection is opened by the first tick that has keys to read, so an empty
 * panel costs nothing and a target that is down only makes the panel say "retrying".
 */
export function startPanel(opts: PanelOptions): Panel {
  let conn: Promise<Connection> | undefined;
  let unwatch = (): void => {};
  const connection = (): Promise<Connection> => {
    if (!conn) {
      conn = connect(opts.spec, { mode: 'long-lived', name: PANEL_CONNECTION_NAME });
      conn.then(
        (c) => (unwatch = watchConnection(c, (e) => {
          opts.onConnection(e.type === 'reconnecting');
          if (e.type === 'reconnected') poller.refresh();
        })),
        () => (conn = undefined), // try again at the next tick
      );
    }
    return conn;
  };
  const poller: Poller = createPoller<readonly LockView[]>({
    intervalMs: opts.intervalMs,
    fetch: async () => {
      const keys = opts.keys();
      if (keys.length === 0) return [];
      const c = await connection();
      // While ioredis reconnects it would queue the read: fail now so the panel says "retrying".
      if (c.client.status !== 'ready') throw new Error(`not connected to ${c.label}`);
      // inspectKeys with a kind per key: still one snapshot pipeline, decoded here.
      const snapshots = await snapshotKeys(c, keys);
      return snapshots.map((snapshot, i) => viewOf(snapshot, opts.kindOf?.(keys[i]!)));
    },
    onState: opts.onState,
  });
  poller.start();
  return {
    refresh: () => poller.refresh(),
    togglePause: () => poller.togglePause(),
    close: async () => {
      poller.stop();
      unwatch();
      const c = await conn?.catch(() => undefined);
      if (c) await closeConnection(c);
    },
  };
}

/** Polls an attached sandbox's status until stopped. */
export function startSandboxPoller(handle: SandboxHandle, intervalMs: number, onState: (state: PollState<SandboxStatus>) => void): Poller {
  const poller = createPoller<SandboxStatus>({ intervalMs: Math.max(intervalMs, SANDBOX_INTERVAL_MS), fetch: () => handle.status(), onState });
  poller.start();
  return poller;
}
