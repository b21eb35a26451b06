import { readdirSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { candidateLines, completeLine, DEFAULT_WORDBREAKS, joinBashWords, type Candidate, type CommandNode, type Sources } from '../core/completion.js';
import { describeTopology, maskUrl } from '../core/targets.js';
import { loadTargets } from '../state/targets.js';
import type { Shell } from './completion-scripts.js';
import type { RunContext } from './context.js';

// What a Tab answers, given the command tree (live from commander, or as the build saved it):
// no commander here, so the saved-tree path of completion-fast.ts loads only what a Tab needs.

// The package's own scenarios/ (this module is in <root>/{src,dist}/commands/).
const SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** Scenario names: the .yaml / .yml files of the shipped catalogue, listed without parsing them (Tab must be quick). */
export function shippedScenarios(dir = SCENARIOS_DIR): Candidate[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
      .map((f) => ({ value: f.slice(0, -extname(f).length) }))
      .sort((a, b) => a.value.localeCompare(b.value));
  } catch {
    return [];
  }
}

/** Saved targets and shipped scenarios, read only when a word needs them; a damaged file completes nothing. */
export function completionSources(ctx: RunContext): Sources {
  return {
    target: () => {
      try {
        return Object.entries(loadTargets(ctx.env)).map(([value, t]) => ({ value, description: `${maskUrl(t.url)} ${describeTopology(t)}` }));
      } catch {
        return [];
      }
    },
    scenario: () => shippedScenarios(),
  };
}


/**
 * The last line of every answer tells the script whether file names fit the word (when nothing
 * else matches): the script reads it as a directive, never as a candidate, so no key or value can
 * be mistaken for it.
 */
export const FILES = ':files';
export const NO_FILES = ':';

/**
 * Tab-separated `value<TAB>description` for zsh and fish; bare values, cut at word breaks, for
 * bash; then the directive line. Lock keys come from the line's server's key cache (completion-cached-keys.ts).
 */
export async function answerLines(
  tree: CommandNode,
  ctx: RunContext,
  shell: Shell,
  typed: readonly string[],
  // Scripts saved before the directive existed read every line as a candidate: they get none.
  { directive: withDirective = true }: { readonly directive?: boolean } = {},
): Promise<string[]> {
  const wordbreaks = ctx.env.COMP_WORDBREAKS ?? DEFAULT_WORDBREAKS;
  const words = shell === 'bash' ? joinBashWords(typed, wordbreaks) : [...typed];
  if (words.length === 0) words.push('');
  const line = completeLine(tree, words, completionSources(ctx));
  const current = words[words.length - 1]!;
  const keys = line.needs === 'key' ? await (await import('./completion-cached-keys.js')).cachedLockKeys(ctx, line.connection, current) : [];
  const candidates = [...line.candidates, ...keys];
  const directive = withDirective ? [line.files ? FILES : NO_FILES] : [];
  return [...candidateLines(candidates, current, shell === 'bash' ? wordbreaks : undefined), ...directive];
}

