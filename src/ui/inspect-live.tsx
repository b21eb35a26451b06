import type { LockView } from '../core/lock-view.js';
import type { PollState } from '../core/poller.js';
import { InspectApp, type InspectAction } from './InspectApp.js';
import { createInspectStore, type ConnectionChange } from './inspect-store.js';
import { mountLive } from './mount-view.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountInspectViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly keys: readonly string[];
  readonly target: string;
  readonly intervalMs: number;
  readonly onAction: (action: InspectAction) => void;
}

export interface LiveInspect {
  poll(state: PollState<readonly LockView[]>): void;
  connection(change: ConnectionChange): void;
  close(): Promise<void>;
}

/** Mounts `inspect --watch` on a terminal (imported lazily: it pulls in ink and react). */
export function mountInspectView(opts: MountInspectViewOptions): LiveInspect {
  const store = createInspectStore(opts);
  // `p` and `q` need raw mode, which swallows Ctrl-C's signal: InspectApp reports it as 'interrupt'.
  const view = mountLive(<InspectApp store={store} onAction={opts.onAction} />, opts, { beforeClose: () => store.end(Date.now()), settle: true });
  return { poll: store.poll, connection: store.connection, close: view.close };
}
