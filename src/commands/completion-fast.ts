import { readFileSync } from 'node:fs';
import type { CommandNode } from '../core/completion.js';
import { ExitCode } from '../core/exit-codes.js';
import type { Shell } from './completion-scripts.js';
import type { RunContext } from './context.js';

// A Tab the script's awk walk could not answer runs `redlock-cli __complete ...`: the launcher
// hands that line here first. `--keys` (a lock key, the connection options already picked out by
// the walk) loads only the key cache's modules; `--shell <sh> -- <words>` (saved targets, and
// scripts saved before the walk existed) answers from the command tree the build wrote from the
// live program (`__complete --tree`), so no command module is loaded either. Without that file
// (running from src/), or for any other form of the line, the caller runs it on the whole program.

/** dist/completion-tree.json, next to dist/commands/. */
export const SAVED_TREE = new URL('../completion-tree.json', import.meta.url);

function savedTree(): CommandNode | undefined {
  try {
    return JSON.parse(readFileSync(SAVED_TREE, 'utf8')) as CommandNode;
  } catch {
    return undefined;
  }
}

// Not SHELLS: the module that exports it carries the scripts, which a Tab has no use for.
const SHELL_NAMES: readonly string[] = ['bash', 'zsh', 'fish'] satisfies readonly Shell[];

/** The exit code, or undefined when the line is not one this answers (then it runs on the program). */
export async function completeFromSavedTree(args: readonly string[], ctx: RunContext): Promise<number | undefined> {
  const [flag, shell, ...rest] = args;
  if (flag === '--keys') return (await import('./completion-key-tab.js')).completeKeys(args.slice(1), ctx);
  const directive = rest[0] === '--files-line';
  const [dashes, ...words] = directive ? rest.slice(1) : rest;
  if (flag !== '--shell' || !SHELL_NAMES.includes(shell!) || dashes !== '--') return undefined;
  const tree = savedTree();
  if (!tree) return undefined;
  const [{ answerLines }, { print }] = await Promise.all([import('./completion-answer.js'), import('./context.js')]);
  for (const line of await answerLines(tree, ctx, shell as Shell, words, { directive })) print(ctx, line);
  return ExitCode.ok;
}
