import { initialHoldState, reduceHold, type HoldEvent, type HoldState } from '../core/hold-events.js';

/** A finished line of the command's output, shown above the live view. */
export interface OutputLine {
  readonly id: number;
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

export interface HoldSnapshot {
  readonly state: HoldState;
  readonly output: readonly OutputLine[];
}

/**
 * The live view's state outside React: events can arrive before the view has subscribed (ink
 * mounts asynchronously), so the store folds them itself and the view reads snapshots
 * through useSyncExternalStore.
 */
export interface HoldStore {
  emit(event: HoldEvent): void;
  /** Raw output of the command; split into lines here, a partial line waits for its end. */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Emits any partial last lines (the command has exited). */
  flush(): void;
  getSnapshot(): HoldSnapshot;
  subscribe(listener: () => void): () => void;
}

export function createHoldStore(identity: Parameters<typeof initialHoldState>[0]): HoldStore {
  let snapshot: HoldSnapshot = { state: initialHoldState(identity), output: [] };
  const listeners = new Set<() => void>();
  const partial = { stdout: '', stderr: '' };
  let nextId = 0;

  const publish = (next: HoldSnapshot): void => {
    snapshot = next;
    for (const listener of listeners) listener();
  };
  const addLines = (stream: 'stdout' | 'stderr', texts: readonly string[]): void => {
    if (texts.length === 0) return;
    const lines = texts.map((text) => ({ id: nextId++, stream, text }));
    publish({ ...snapshot, output: [...snapshot.output, ...lines] });
  };

  return {
    emit: (event) => publish({ ...snapshot, state: reduceHold(snapshot.state, event) }),
    write: (stream, text) => {
      const parts = (partial[stream] + text).split(/\r?\n/);
      partial[stream] = parts.pop() ?? '';
      addLines(stream, parts);
    },
    flush: () => {
      for (const stream of ['stdout', 'stderr'] as const) {
        if (partial[stream] !== '') addLines(stream, [partial[stream]]);
        partial[stream] = '';
      }
    },
    getSnapshot: () => snapshot,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
