import type { PollState } from '../core/poller.js';
import type { LockScan } from '../inspect/scan-locks.js';
import { LsApp, type LsAction } from './LsApp.js';
import { createLsStore } from './ls-store.js';
import { mountLive } from './mount-view.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountLsViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly pattern: string;
  readonly target: string;
  readonly intervalMs: number;
  readonly onAction: (action: LsAction) => void;
}

export interface LiveLs {
  poll(state: PollState<LockScan>): void;
  close(): Promise<void>;
}

/** Mounts `ls --watch` on a terminal (imported lazily: it pulls in ink and react). */
export function mountLsView(opts: MountLsViewOptions): LiveLs {
  const store = createLsStore(opts);
  // The keys need raw mode, which swallows Ctrl-C's signal: LsApp reports it as 'interrupt'.
  const view = mountLive(<LsApp store={store} onAction={opts.onAction} />, opts, { settle: true });
  return { poll: store.poll, close: view.close };
}
