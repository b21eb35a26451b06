import type { LockKind } from '../locks/types.js';
import { forgetOwner, rememberOwner } from '../state/owners.js';
import type { RunContext } from './context.js';
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
  return {
    emit(event) {
      if (event.type === 'acquired') {
        rememberOwner(ctx.env, { ...lock, leaseMs: event.leaseMs, expiresAt: event.at + event.leaseMs, token: event.token });
      } else if (event.type === 'released' || event.type === 'expired' || event.type === 'lost') {
        forgetOwner(ctx.env, lock);
      }
      out.emit(event);
    },
    childOutput: (stream, text) => out.childOutput(stream, text),
    close: () => out.close(),
    ...(out.showsWaiting !== undefined ? { showsWaiting: out.showsWaiting } : {}),
  };
}
