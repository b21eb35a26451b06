import type { PollState } from '../core/poller.js';
import type { LockScan } from '../inspect/scan-locks.js';

// Folds the poller's states for `ls --watch` outside React, like inspect-store: ticks can arrive
// before ink has mounted, and the view only reads the latest screen.

export interface LsScreen {
  readonly pattern: string;
  readonly target: string;
  readonly intervalMs: number;
  readonly scan?: LockScan | undefined;
  /** Local time the scan behind `scan` started: TTLs count down from here. */
  readonly readAt?: number | undefined;
  readonly tookMs?: number | undefined;
  readonly pausedAt?: number | undefined;
  readonly retry?: { readonly at: number; readonly retryInMs: number; readonly error: string } | undefined;
}

export interface LsStore {
  poll(state: PollState<LockScan>): void;
  getSnapshot(): LsScreen;
  subscribe(listener: () => void): () => void;
}

export function createLsStore(init: { pattern: string; target: string; intervalMs: number }): LsStore {
  let screen: LsScreen = { ...init };
  const listeners = new Set<() => void>();
  const publish = (next: LsScreen): void => {
    screen = next;
    for (const listener of listeners) listener();
  };
  return {
    poll: (state) => {
      switch (state.type) {
        case 'ok':
          return publish({ ...screen, scan: state.snapshot, readAt: state.at, tookMs: state.tookMs, retry: undefined });
        case 'retrying':
          return publish({ ...screen, retry: { at: state.at, retryInMs: state.retryInMs, error: state.error } });
        case 'paused':
          return publish({ ...screen, pausedAt: state.at });
        case 'resumed':
          return publish({ ...screen, pausedAt: undefined });
      }
    },
    getSnapshot: () => screen,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
