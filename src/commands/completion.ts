import { Argument, Option, type Command } from 'commander';
import { ExitCode } from '../core/exit-codes.js';
import { completionTable } from '../core/completion-table.js';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';
import { commandTree, shippedScenarios } from './completion-tree.js';
import { answerLines } from './completion-answer.js';
import { act, print, type CommandContext } from './context.js';
import { prose } from './help-text.js';

const HELP = `
Completes commands, subcommands, options, lock kinds, shipped scenario names, saved target
names, and lock keys where a key goes; file names only where a file can go. Commands, options
and fixed values are written into the script and answered by awk, without starting redlock-cli:
save the script again after an upgrade (\`source <(...)\` in an rc file does that by itself).
Lock keys come from the server the line names (or REDIS_URL, or the current target) through a
small cache in the state dir: a Tab answers from it and, once it is 3 s old, refreshes it in the
background for the next Tab. With no cache yet, a Tab starts one and offers nothing; the next
Tab has the keys (REDLOCK_CLI_COMPLETE_MS=<ms> to wait for them); never a password prompt.

Examples:
  source <(redlock-cli completion bash)        # this shell; put the line in ~/.bashrc to keep it
  redlock-cli completion zsh > "\${fpath[1]}/_redlock-cli"
  redlock-cli completion fish > ~/.config/fish/completions/redlock-cli.fish`;

/** `completion bash|zsh|fish` and the hidden `__complete` the scripts call. */
export function registerCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .summary('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'which shell').choices(SHELLS))
    .addHelpText('after', prose(ctx, HELP))
    .action(
      act(ctx, async (shell: Shell) => {
        const table = completionTable(commandTree(program), shippedScenarios().map((s) => s.value));
        ctx.stdout.write(completionScript(shell, table));
        return ExitCode.ok;
      }),
    );
  program
    .command('__complete', { hidden: true })
    .description('candidates for the last word, one per line (used by the completion scripts)')
    .addOption(new Option('--shell <shell>').choices(SHELLS).default('fish'))
    // The build saves the tree (`__complete --tree > dist/completion-tree.json`) for completion-fast.ts.
    .addOption(new Option('--tree', 'print the command tree as JSON instead'))
    .addOption(new Option('--files-line', 'end with the line saying whether file names fit (the scripts since it exists)'))
    .argument('[words...]', 'the words after the program name, the last one being typed')
    .action(
      act(ctx, async (words: string[], flags: { shell: Shell; tree?: boolean; filesLine?: boolean }) => {
        if (flags.tree) ctx.stdout.write(`${JSON.stringify(commandTree(program))}\n`);
        else for (const line of await answerLines(commandTree(program), ctx, flags.shell, words, { directive: flags.filesLine === true })) print(ctx, line);
        return ExitCode.ok;
      }),
    );
}
