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
  // File updates run one after another in event order (a quick release must not be overtaken
  // by the remember before it); close() waits for the last one.
  let writes = Promise.resolve();
  const warn = (line: string): void => note(ctx, line);
  const queue = (write: () => Promise<void>): void => void (writes = writes.then(write, write));
  return {
    emit(event) {
      if (event.type === 'acquired') {
        queue(() => rememberOwner(ctx.env, { ...lock, leaseMs: event.leaseMs, expiresAt: event.at + event.leaseMs, token: event.token }, warn));
      } else if (event.type === 'released' || event.type === 'expired' || event.type === 'lost') {
        queue(() => forgetOwner(ctx.env, lock, warn));
      }
      out.emit(event);
    },
    childOutput: (stream, text) => out.childOutput(stream, text),
    close: async () => {
      await writes.catch(() => undefined);
      await out.close();
    },
  };
}
