// What the REPL's panel shows of Redis, folded from the poller's states: the latest view of every
// key it reads, when that read was sent, and what changed since the previous read (the lock events
// the output area logs, like `inspect --watch` does).

import { viewShows } from '../held-view.js';
import { deriveLockEvents, describeLockEvent } from '../lock-events.js';
import type { LockView } from '../lock-view.js';
import type { PollState } from '../poller.js';
import type { HeldLock, PanelScreen } from './screen-parts.js';

export const emptyPanel = (intervalMs: number): PanelScreen => ({ watched: [], views: {}, scales: {}, intervalMs });

const holdersOf = (view: LockView): string =>
  [...view.holders.map((h) => h.owner), ...(view.readers ?? []).map((r) => r.owner)].sort().join('\n');

/** The next panel after a poller state, and the lines to log about what changed. */
export function foldPoll(
  panel: PanelScreen,
  state: PollState<readonly LockView[]>,
): { panel: PanelScreen; lines: string[] } {
  switch (state.type) {
    case 'ok': {
      const views: Record<string, LockView> = {};
      const scales: Record<string, number> = {};
      const lines: string[] = [];
      for (const view of state.snapshot) {
        views[view.key] = view;
        const prev = panel.views[view.key];
        const prevScale = panel.scales[view.key];
        if (view.ttlMs >= 0) {
          const same = prev !== undefined && prevScale !== undefined && holdersOf(prev) === holdersOf(view);
          scales[view.key] = same ? Math.max(prevScale, view.ttlMs) : view.ttlMs;
        }
        if (!prev) continue;
        // Warnings stay on the key's block and renewals show as its TTL bar filling up: as log
        // lines they would bury the commands' output (a watchdog renews every few seconds).
        for (const e of deriveLockEvents(prev, view))
          if (e.type !== 'warning' && e.type !== 'renewed') lines.push(`${e.key}: ${describeLockEvent(e)}`);
      }
      if (panel.retry) lines.unshift('panel: reading again');
      return { panel: { ...panel, views, scales, readAt: state.at, retry: undefined }, lines };
    }
    case 'retrying': {
      const lines = panel.retry || panel.reconnecting ? [] : [`panel: read failed: ${state.error}`];
      return { panel: { ...panel, retry: { at: state.at, retryInMs: state.retryInMs, error: state.error } }, lines };
    }
    case 'paused':
      return { panel: { ...panel, paused: true }, lines: [] };
    case 'resumed':
      return { panel: { ...panel, paused: false }, lines: [] };
  }
}

/** Locks still held as far as the last read knows: a read sent after the lock was taken and not showing it means it is gone. */
export function stillHeld(
  locks: readonly HeldLock[],
  views: Readonly<Record<string, LockView>>,
  readAt: number | undefined,
): HeldLock[] {
  return locks.filter((lock) => {
    const view = views[lock.key];
    if (!view || readAt === undefined || readAt < lock.since) return true;
    return viewShows(view, lock.owner);
  });
}
