import type { LockKind } from '../core/lock-kind.js';
import type { RunContext } from './context.js';
import type { HoldOutput } from './hold-output.js';

/**
 * `out` that also reports every hold event to the host as a typed outcome (the REPL folds them
 * into its panel). A host that shows the events itself gets them only that way; the held
 * command's output still goes through as it is.
 */
export function reportingTo(
  ctx: RunContext,
  out: HoldOutput,
  lock: { key: string; kind: LockKind; owner: string; target: string },
): HoldOutput {
  const emit = ctx.emit;
  if (!emit) return out;
  return {
    ...out,
    emit: (event) => {
      if (!ctx.hostShowsHoldEvents) out.emit(event);
      emit({ type: 'hold-event', ...lock, event });
    },
  };
}
