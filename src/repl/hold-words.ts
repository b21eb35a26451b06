import { describeHoldEvent } from '../commands/hold-lines.js';
import type { CommandOutcome } from '../core/outcomes.js';
import type { SessionState } from './host.js';

/**
 * The line a background hold's event gets in the output area, in the words `hold` uses outside
 * (with its job and client in front), or undefined: its renewals are counted on the panel (a line
 * every lease/3 would bury everything else), and a hold run with --json prints its own NDJSON.
 */
export function holdEventLine(
  state: SessionState,
  client: string,
  outcome: CommandOutcome,
  jobId: number | undefined,
): string | undefined {
  if (outcome.type !== 'hold-event' || jobId === undefined || outcome.event.type === 'renewed') return undefined;
  const hold = state.jobs.find((j) => j.id === jobId)?.hold;
  if (!hold || hold.rawJson) return undefined;
  const words = describeHoldEvent(
    { key: outcome.key, kind: outcome.kind, owner: outcome.owner, mode: hold.mode ?? 'watchdog' },
    outcome.event,
  );
  return words === undefined ? undefined : `[%${jobId} ${client}] ${words}`;
}
