import { Help, type Command } from 'commander';
import { lookupCommand } from '../core/completion.js';
import { UsageError } from '../core/errors.js';
import { commandTree } from './completion-tree.js';
import type { RunContext } from './context.js';
import { commandPath } from './help-examples.js';
import { prose } from './help-text.js';

// `help <command...>` in place of commander's own help command, which reads only the word after
// `help` (so `help sandbox up` showed the sandbox group) and answers a typo with the whole help.
// Here the words are followed down the tree and the command found prints exactly what its
// --help prints; a word that names nothing is one usage line with the nearest names, as the same
// typo without `help` gets from commander.

const TOP_EXAMPLES = ['redlock-cli help inspect', 'redlock-cli help sandbox up'];

/** The command the words name under `cmd`, or a usage error naming the nearest ones. */
function resolve(cmd: Command, words: readonly string[]): Command {
  const found = lookupCommand(commandTree(cmd), words);
  if (!found.ok) throw new UsageError(found.message);
  let target = cmd;
  for (const node of found.path) target = target.commands.find((c) => c.name() === node.name)!;
  return target;
}

function addHelpCommand(cmd: Command, ctx: RunContext): void {
  cmd.helpCommand(false);
  const path = commandPath(cmd);
  const subs = new Help().visibleCommands(cmd).map((c) => c.name());
  const examples = path === '' ? TOP_EXAMPLES : subs.slice(0, 2).map((sub) => `redlock-cli ${path} help ${sub}`);
  cmd
    .command('help')
    .argument('[command...]', path === '' ? 'a command, or a group and one of its commands (sandbox up)' : `one of the ${path} commands`)
    .summary(path === '' ? 'display help for a command (help sandbox up)' : `display help for a ${path} command`)
    .addHelpText('after', prose(ctx, `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`))
    .action((words: string[]) => {
      // help() prints like --help does and ends the parse with exit code 0.
      (words.length === 0 ? cmd : resolve(cmd, words)).help();
    });
}

/** `help` for the program and for every group (`sandbox help up`); call once every command is registered. */
export function registerHelp(program: Command, ctx: RunContext): void {
  const groups = (cmd: Command): Command[] => cmd.commands.filter((c) => c.commands.length > 0).flatMap((c) => [c, ...groups(c)]);
  for (const cmd of [program, ...groups(program)]) addHelpCommand(cmd, ctx);
}
