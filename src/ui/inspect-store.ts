import { deriveLockEvents, describeLockEvent, type LockEvent } from '../core/lock-events.js';
import type { LockView } from '../core/lock-view.js';
import type { PollState } from '../core/poller.js';

/** How a log line reads at a glance. */
export type LogTone = 'good' | 'notice' | 'bad' | 'plain';

/** One line of the event log that scrolls above the live view. */
export interface InspectLogLine {
  readonly id: number;
  /** Local time of the tick (or connection change) that saw it. */
  readonly at: number;
  /** The lock it is about; none for the connection's own lines. */
  readonly key?: string | undefined;
  readonly tone: LogTone;
  readonly text: string;
}

const TONE: Partial<Record<LockEvent['type'], LogTone>> = {
  acquired: 'good',
  'reader-joined': 'good',
  expired: 'notice',
  purged: 'notice',
  warning: 'bad',
};

/** The long-lived connection's own state, reported apart from the poller's. */
export interface ConnectionChange {
  readonly type: 'reconnecting' | 'reconnected';
  readonly at: number;
  readonly target: string;
}

export interface InspectScreen {
  readonly keys: readonly string[];
  readonly target: string;
  readonly intervalMs: number;
  /** The last snapshot, one view per key in the order asked for. */
  readonly views?: readonly LockView[] | undefined;
  /** Local time the read behind `views` was sent: countdowns run from here. */
  readonly readAt?: number | undefined;
  /** Per key, the full length of its TTL bar: the largest TTL seen since its holders last changed. */
  readonly scales: Readonly<Record<string, number>>;
  readonly log: readonly InspectLogLine[];
  readonly pausedAt?: number | undefined;
  readonly retry?: { readonly at: number; readonly retryInMs: number; readonly error: string } | undefined;
  readonly reconnecting?: { readonly at: number; readonly target: string } | undefined;
  /** The watch is over: the last frame stays on screen and should not look live. */
  readonly endedAt?: number | undefined;
}

export interface InspectStore {
  poll(state: PollState<readonly LockView[]>): void;
  connection(change: ConnectionChange): void;
  end(at: number): void;
  getSnapshot(): InspectScreen;
  subscribe(listener: () => void): () => void;
}

const ownersOf = (view: LockView): string => [...view.holders.map((h) => h.owner), ...(view.readers ?? []).map((r) => r.owner)].sort().join('\n');

/**
 * A bar needs a full length, and a snapshot only has the TTL left: use the largest TTL seen for
 * the same holders (a watchdog lock shows its full lease after the first renewal).
 */
function nextScale(prev: LockView | undefined, prevScale: number | undefined, view: LockView): number | undefined {
  if (view.ttlMs < 0) return undefined;
  const same = prev !== undefined && prevScale !== undefined && ownersOf(prev) === ownersOf(view);
  return same ? Math.max(prevScale, view.ttlMs) : view.ttlMs;
}

/** Folds poller states and connection changes outside React (events can come before ink mounts). */
export function createInspectStore(init: { keys: readonly string[]; target: string; intervalMs: number }): InspectStore {
  let screen: InspectScreen = { ...init, scales: {}, log: [] };
  const listeners = new Set<() => void>();
  let nextId = 0;
  // A "read failed" line is in the log and its recovery is not yet.
  let readFailed = false;
  // Reads failed or the connection dropped since the last good read: what changed meanwhile is
  // inferred across the gap (a restarted server that lost its data looks like releases).
  let gap = false;
  const publish = (next: InspectScreen): void => {
    screen = next;
    for (const listener of listeners) listener();
  };

  const onSnapshot = (at: number, views: readonly LockView[]): void => {
    const before = new Map((screen.views ?? []).map((v) => [v.key, v]));
    const scales: Record<string, number> = {};
    const lines: InspectLogLine[] = [];
    for (const view of views) {
      const prev = before.get(view.key);
      const scale = nextScale(prev, screen.scales[view.key], view);
      if (scale !== undefined) scales[view.key] = scale;
      if (!prev) continue;
      for (const e of deriveLockEvents(prev, view)) {
        const text = `${describeLockEvent(e)}${gap ? ' (while Redis was unreachable)' : ''}`;
        lines.push({ id: nextId++, at, key: e.key, tone: TONE[e.type] ?? 'plain', text });
      }
    }
    if (readFailed) lines.unshift({ id: nextId++, at, tone: 'good', text: 'reading again' });
    readFailed = false;
    gap = false;
    publish({
      ...screen,
      views,
      readAt: at,
      scales,
      log: lines.length > 0 ? [...screen.log, ...lines] : screen.log,
      retry: undefined,
    });
  };

  /** Adds a line of the watch's own (connection lost, read failed): the log is the timeline. */
  const note = (at: number, tone: LogTone, text: string): InspectLogLine[] => [...screen.log, { id: nextId++, at, tone, text }];

  return {
    poll: (state) => {
      switch (state.type) {
        case 'ok':
          return onSnapshot(state.at, state.snapshot);
        case 'retrying': {
          // Once per failing streak, and not while the connection itself is known to be down (said already).
          const quiet = screen.retry !== undefined || screen.reconnecting !== undefined;
          const log = quiet ? screen.log : note(state.at, 'bad', `read failed: ${state.error}`);
          readFailed ||= !quiet;
          gap = true;
          return publish({ ...screen, log, retry: { at: state.at, retryInMs: state.retryInMs, error: state.error } });
        }
        case 'paused':
          return publish({ ...screen, pausedAt: state.at });
        case 'resumed':
          return publish({ ...screen, pausedAt: undefined });
      }
    },
    connection: (change) => {
      const down = change.type === 'reconnecting';
      gap ||= down;
      const text = down ? `connection to ${change.target} lost` : `reconnected to ${change.target}`;
      publish({ ...screen, log: note(change.at, down ? 'bad' : 'good', text), reconnecting: down ? { at: change.at, target: change.target } : undefined });
    },
    end: (at) => publish({ ...screen, endedAt: at }),
    getSnapshot: () => screen,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
