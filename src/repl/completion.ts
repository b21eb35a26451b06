import { completionSources, shippedScenarios } from '../commands/completion-tree.js';
import { complete } from '../core/repl/complete.js';
import { completionPoint } from '../core/repl/tokenize.js';
import { sandboxesRoot, sandboxNames } from '../sandbox/state.js';
import { loadOwners } from '../state/owners.js';
import { BUILTINS } from './builtins.js';
import type { ReplSession } from './session.js';

/** Keys the REPL knows of: watched and read by the panel, held by its clients, remembered by acquire. */
function knownKeys(session: ReplSession): string[] {
  const { held, waiting } = session.locks();
  const remembered = loadOwners(session.env).map((e) => e.key);
  return [...session.watched, ...Object.keys(session.getSnapshot().panel.views), ...held.map((h) => h.key), ...waiting.map((w) => w.key), ...remembered];
}

/** Candidates for Tab at the end of `beforeCursor`. */
export function completeLine(session: ReplSession, beforeCursor: string): string[] {
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
    clients: [...session.clients.keys()],
    sandboxes,
    values: { ...shell, scenario: () => shippedScenarios(), key: () => knownKeys(session).map((value) => ({ value })) },
  });
}
