import { Argument, Option, type Command } from 'commander';
import { completeWords, forBash, joinBashWords } from '../core/completion.js';
import { ExitCode } from '../core/exit-codes.js';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';
import { commandTree, completionSources } from './completion-tree.js';
import { act, print, type CommandContext } from './context.js';
import { prose } from './help-text.js';

const HELP = `
Completes commands, subcommands, options, lock kinds, shipped scenario names and saved target
names. The script is small: on each Tab it asks \`redlock-cli __complete\`, so new commands,
scenarios and targets complete without generating it again.

Examples:
  source <(redlock-cli completion bash)        # this shell; put the line in ~/.bashrc to keep it
  redlock-cli completion zsh > "\${fpath[1]}/_redlock-cli"
  redlock-cli completion fish > ~/.config/fish/completions/redlock-cli.fish`;

// Bash's default, for a bash older than the script (the script always passes its own).
const DEFAULT_WORDBREAKS = ` \t\n"'><=;|&(:`;

/** Tab-separated `value<TAB>description` for zsh and fish; bare values, cut at word breaks, for bash. */
function answer(root: Command, ctx: CommandContext, shell: Shell, typed: readonly string[]): string[] {
  const wordbreaks = ctx.env.COMP_WORDBREAKS ?? DEFAULT_WORDBREAKS;
  const words = shell === 'bash' ? joinBashWords(typed, wordbreaks) : [...typed];
  if (words.length === 0) words.push('');
  const candidates = completeWords(commandTree(root), words, completionSources(ctx));
  if (shell === 'bash') return forBash(candidates, words[words.length - 1]!, wordbreaks);
  return candidates.map((c) => (c.description ? `${c.value}\t${c.description.replace(/\s+/g, ' ')}` : c.value));
}

/** `completion bash|zsh|fish` and the hidden `__complete` the scripts call. */
export function registerCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .summary('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'which shell').choices(SHELLS))
    .addHelpText('after', prose(ctx, HELP))
    .action(
      act(ctx, async (shell: Shell) => {
        ctx.stdout.write(completionScript(shell));
        return ExitCode.ok;
      }),
    );
  program
    .command('__complete', { hidden: true })
    .description('candidates for the last word, one per line (used by the completion scripts)')
    .addOption(new Option('--shell <shell>').choices(SHELLS).default('fish'))
    .argument('[words...]', 'the words after the program name, the last one being typed')
    .action(
      act(ctx, async (words: string[], flags: { shell: Shell }) => {
        for (const line of answer(program, ctx, flags.shell, words)) print(ctx, line);
        return ExitCode.ok;
      }),
    );
}
