import { COMMANDS, type CommandEntry } from '../cli/commands.js';

/** `repl`: the REPL host contributes its own command to the program both hosts run. */
export const REPL_COMMAND: CommandEntry = {
  name: 'repl',
  load: async () => (await import('./command.js')).registerRepl,
};

/** The whole command set: the shared commands and `repl`. */
export const ALL_COMMANDS: readonly CommandEntry[] = [...COMMANDS, REPL_COMMAND];
