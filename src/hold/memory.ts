import type { HoldEvent } from '../core/hold-events.js';
import type { LockKind } from '../locks/types.js';
import { forgetOwner, rememberOwner } from '../state/owners.js';
import type { HoldEvents } from './session.js';

interface HeldLock {
  readonly target: string;
  readonly key: string;
  readonly kind: LockKind;
  readonly owner: string;
}

/** Where the owner memory lives (the user's state dir comes from the environment) and where its problems go. */
export interface MemoryPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly warn: (line: string) => void;
}

/** Hold events that end in an output to flush (the live view unmounts there). */
export interface ClosableHoldEvents extends HoldEvents {
  close(): Promise<void>;
}

/**
 * Remembers the lock in the owner memory while `hold` has it, so that if the process is killed
 * (SIGKILL, a closed terminal) `redlock-cli release <key>` can still find the owner. The entry's
 * expiry is the first lease: a watchdog hold that dies keeps the lock at most one lease longer.
 */
export function rememberWhileHeld(out: ClosableHoldEvents, place: MemoryPlace, lock: HeldLock): ClosableHoldEvents {
  // Events go out in order, each after the file change it implies: "acquired" is shown once the
  // owner is remembered (so a release typed on seeing it finds the owner), and a quick release
  // is never overtaken by the remember before it. The held command's output takes its place in
  // the same queue: a command started right after the acquire must not print before "acquired"
  // is shown (on a busy machine the remember can take longer than the command's first line).
  // close() waits for the last one.
  let writes = Promise.resolve();
  const write = (event: HoldEvent): Promise<void> => {
    if (event.type === 'acquired') {
      return rememberOwner(place.env, { ...lock, leaseMs: event.leaseMs, expiresAt: event.at + event.leaseMs, token: event.token }, place.warn);
    }
    if (event.type === 'released' || event.type === 'expired' || event.type === 'lost') return forgetOwner(place.env, lock, place.warn);
    return Promise.resolve();
  };
  return {
    emit(event) {
      const show = (): void => out.emit(event);
      writes = writes.then(() => write(event)).then(show, show);
    },
    childOutput(stream, text) {
      const pass = (): void => out.childOutput(stream, text);
      writes = writes.then(pass, pass);
    },
    close: async () => {
      await writes.catch(() => undefined);
      await out.close();
    },
    ...(out.showsWaiting !== undefined ? { showsWaiting: out.showsWaiting } : {}),
  };
}
