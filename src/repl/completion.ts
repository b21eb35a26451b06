import { completionSources, shippedScenarios } from '../commands/completion-tree.js';
import { complete } from '../core/repl/complete.js';
import { completionPoint } from '../core/repl/tokenize.js';
import { sandboxesRoot, sandboxNames } from '../sandbox/state.js';
import { loadOwners } from '../state/owners.js';
import { BUILTINS } from './builtins.js';
import { locksHere } from '../core/repl/selectors.js';
import type { ReplHost } from './host.js';

/**
 * Keys the REPL knows of: watched and read by the panel, held by its clients, and keys `acquire`
 * remembered on this machine (in any session or shell: suggestions, not what the clients hold).
 */
function knownKeys(session: ReplHost): string[] {
  const { held, waiting } = locksHere(session.state);
  const remembered = loadOwners(session.env).map((e) => e.key);
  const { panel } = session.state;
  return [...panel.watched, ...Object.keys(panel.views), ...held.map((h) => h.key), ...waiting.map((w) => w.key), ...remembered];
}

/** Candidates for Tab at the end of `beforeCursor`. */
export function completeLine(session: ReplHost, beforeCursor: string): string[] {
  let sandboxes: string[] = [];
  try {
    // Listing directories only: nothing is checked or cleaned up on a key press.
    sandboxes = sandboxNames(sandboxesRoot(undefined, session.env));
  } catch {
    sandboxes = [];
  }
  const shell = completionSources({ stdout: { write: () => true }, stderr: { write: () => true }, env: session.env });
  return complete(completionPoint(beforeCursor), session.tree, {
    builtins: BUILTINS,
    clients: session.state.clients.map((c) => c.name),
    sandboxes,
    values: { ...shell, scenario: () => shippedScenarios(), key: () => knownKeys(session).map((value) => ({ value })) },
  });
}
