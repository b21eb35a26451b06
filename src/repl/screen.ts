import { heldElsewhere, locksHere } from '../core/repl/selectors.js';
import type { ReplScreen } from '../ui/repl-screen.js';
import type { SessionState } from './host.js';

/** The prompt: the current client at the current target (`A@127.0.0.1:6379> `). */
export const promptOf = (state: SessionState): string => `${state.current}@${state.target.target.label}> `;

/** The screen the ink view draws, from the session's state and the prompt line's queue and question. */
export function screenOf(
  state: SessionState,
  prompt: { readonly queued: number; readonly question?: string | undefined },
): ReplScreen {
  const { held, waiting } = locksHere(state);
  return {
    output: state.output,
    prompt: promptOf(state),
    client: state.current,
    clients: state.clients.map((c) => c.name),
    target: state.target.target.label,
    running: state.running?.view,
    queued: prompt.queued,
    question: prompt.question,
    panel: state.panel,
    held,
    heldElsewhere: heldElsewhere(state),
    waiting,
    jobs: state.jobs.map(({ id, client, line, since }) => ({ id, client, line, since })),
    sandbox: state.sandbox,
    stepping: state.stepping,
    who: state.who,
    ended: state.ended,
  };
}
