import { readFileSync } from 'node:fs';
import type { CommandNode } from '../core/completion.js';
import { ExitCode } from '../core/exit-codes.js';
import { answerLines } from './completion-answer.js';
import { SHELLS, type Shell } from './completion-scripts.js';
import { print, type RunContext } from './context.js';

// A Tab runs `redlock-cli __complete --shell <sh> -- <words>`: the launcher hands that line here
// first. The command tree comes from the file the build wrote from the live program
// (`__complete --tree`), so no command module is loaded: a Tab costs node's start-up, one JSON
// read and, where a key goes, the bounded key lookup. Without the file (running from src/), or
// for any other form of the line, the caller runs it on the whole program as before.

/** dist/completion-tree.json, next to dist/commands/. */
export const SAVED_TREE = new URL('../completion-tree.json', import.meta.url);

function savedTree(): CommandNode | undefined {
  try {
    return JSON.parse(readFileSync(SAVED_TREE, 'utf8')) as CommandNode;
  } catch {
    return undefined;
  }
}

/** The exit code, or undefined when the line is not one this answers (then it runs on the program). */
export async function completeFromSavedTree(args: readonly string[], ctx: RunContext): Promise<number | undefined> {
  const [flag, shell, ...rest] = args;
  const directive = rest[0] === '--files-line';
  const [dashes, ...words] = directive ? rest.slice(1) : rest;
  if (flag !== '--shell' || !SHELLS.includes(shell as Shell) || dashes !== '--') return undefined;
  const tree = savedTree();
  if (!tree) return undefined;
  for (const line of await answerLines(tree, ctx, shell as Shell, words, { directive })) print(ctx, line);
  return ExitCode.ok;
}
