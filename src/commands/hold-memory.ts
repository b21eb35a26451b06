import type { HoldEvent } from '../core/hold-events.js';
import type { LockKind } from '../locks/types.js';
import { forgetOwner, rememberOwner } from '../state/owners.js';
import { note, type RunContext } from './context.js';
import type { HoldOutput } from './hold-output.js';

interface HeldLock {
  readonly target: string;
  readonly key: string;
  readonly kind: LockKind;
  readonly owner: string;
}

/**
 * Remembers the lock in the owner memory while `hold` has it, so that if the process is killed
 * (SIGKILL, a closed terminal) `redlock-cli release <key>` can still find the owner. The entry's
 * expiry is the first lease: a watchdog hold that dies keeps the lock at most one lease longer.
 */
export function rememberWhileHeld(out: HoldOutput, ctx: RunContext, lock: HeldLock): HoldOutput {
  // Events go out in order, each after the file change it implies: "acquired" is shown once the
  // owner is remembered (so a release typed on seeing it finds the owner), and a quick release
  // is never overtaken by the remember before it. close() waits for the last one.
  let writes = Promise.resolve();
  const warn = (line: string): void => note(ctx, line);
  const write = (event: HoldEvent): Promise<void> => {
    if (event.type === 'acquired') {
      return rememberOwner(ctx.env, { ...lock, leaseMs: event.leaseMs, expiresAt: event.at + event.leaseMs, token: event.token }, warn);
    }
    if (event.type === 'released' || event.type === 'expired' || event.type === 'lost') return forgetOwner(ctx.env, lock, warn);
    return Promise.resolve();
  };
  return {
    emit(event) {
      const show = (): void => out.emit(event);
      writes = writes.then(() => write(event)).then(show, show);
    },
    childOutput: (stream, text) => out.childOutput(stream, text),
    close: async () => {
      await writes.catch(() => undefined);
      await out.close();
    },
    ...(out.showsWaiting !== undefined ? { showsWaiting: out.showsWaiting } : {}),
  };
}
