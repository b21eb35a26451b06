import { candidateLines, DEFAULT_WORDBREAKS } from '../core/completion.js';
import { ExitCode } from '../core/exit-codes.js';
import { cachedLockKeys } from './completion-cached-keys.js';
import { print, type RunContext } from './context.js';

// A Tab where a lock key goes, as the scripts ask for it once their awk walk has found that out:
// `redlock-cli __complete --keys <shell> =<word> <connection options...>`. No command tree, no
// walk: the word and the line's connection options are all the key cache needs, so this path
// loads a handful of small modules on top of node itself.

/** The exit code, or undefined when the arguments are not this form. */
export async function completeKeys(args: readonly string[], ctx: RunContext): Promise<number | undefined> {
  const [shell, word, ...connection] = args;
  if ((shell !== 'bash' && shell !== 'zsh' && shell !== 'fish') || !word?.startsWith('=')) return undefined;
  const current = word.slice(1);
  const keys = await cachedLockKeys(ctx, connection, current);
  const wordbreaks = shell === 'bash' ? (ctx.env.COMP_WORDBREAKS ?? DEFAULT_WORDBREAKS) : undefined;
  // Never file names where a key goes: the directive is always `:`.
  for (const line of [...candidateLines(keys, current, wordbreaks), ':']) print(ctx, line);
  return ExitCode.ok;
}
