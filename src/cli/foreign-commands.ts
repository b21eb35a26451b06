import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { FOREIGN_COMMANDS } from '../core/foreign-names.js';

// `lock`, `unlock`, `info`: what a Redisson, consul or redis-cli user types first. Commander's own
// suggestion goes by spelling only (`lock` is far from `acquire`), so each such name is a hidden
// command that is refused, before it parses anything, with the name this tool uses.

/** Adds the hidden stand-ins for other tools' command names that the program does not have. */
export function addForeignCommands(program: Command): void {
  const stand = new WeakSet<Command>();
  for (const foreign of Object.keys(FOREIGN_COMMANDS)) {
    if (program.commands.some((c) => c.name() === foreign || c.aliases().includes(foreign))) continue;
    const cmd = program.command(foreign, { hidden: true }).helpOption(false).allowUnknownOption().allowExcessArguments();
    stand.add(cmd.action(() => undefined));
  }
  program.hook('preSubcommand', (_program, sub) => {
    if (stand.has(sub)) throw new UsageError(`unknown command '${sub.name()}' (Did you mean ${FOREIGN_COMMANDS[sub.name()]}?)`);
  });
}
