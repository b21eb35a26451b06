import type { Command } from 'commander';
import type { CommandContext } from '../commands/context.js';

/** Adds one top-level command (and its subcommands) to the program. */
export type RegisterCommand = (program: Command, ctx: CommandContext) => unknown;

/**
 * One top-level command: its name, and how to load the module that registers it. The module is
 * imported only when the command line names it (or when the whole tree is needed: help,
 * completion, a typo), so `inspect k` never loads yaml, zod or the sandbox.
 */
export interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<RegisterCommand>;
}

/** Every command the CLI and the REPL share, in the order help lists them. One line per command. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'acquire', load: async () => (await import('../commands/acquire.js')).registerAcquire },
  { name: 'hold', load: async () => (await import('../commands/hold.js')).registerHold },
  { name: 'renew', load: async () => (await import('../commands/renew.js')).registerRenew },
  { name: 'release', load: async () => (await import('../commands/release.js')).registerRelease },
  { name: 'force-unlock', load: async () => (await import('../commands/force-unlock.js')).registerForceUnlock },
  { name: 'sandbox', load: async () => (await import('../commands/sandbox.js')).registerSandbox },
  { name: 'scenario', load: async () => (await import('../commands/scenario.js')).registerScenario },
  { name: 'inspect', load: async () => (await import('../commands/inspect.js')).registerInspect },
  { name: 'ls', load: async () => (await import('../commands/ls.js')).registerLs },
  { name: 'doctor', load: async () => (await import('../commands/doctor.js')).registerDoctor },
  { name: 'race', load: async () => (await import('../commands/race.js')).registerRace },
  { name: 'trace', load: async () => (await import('../commands/trace.js')).registerTrace },
  { name: 'export', load: async () => (await import('../commands/export.js')).registerExport },
  { name: 'who', load: async () => (await import('../commands/who.js')).registerWho },
  { name: 'target', load: async () => (await import('../commands/target.js')).registerTarget },
  { name: 'completion', load: async () => (await import('../commands/completion.js')).registerCompletion },
];

// Options of the program itself; none takes a value, so the first other word names the command.
const PROGRAM_FLAGS = new Set(['--debug', '--no-color', '-V', '--version', '-h', '--help']);
// These read the whole tree: help and completion walk it.
const WHOLE_TREE = new Set(['help', 'completion']);

/**
 * The entries a command line needs: only the command it names; none for a bare `--version`; all
 * of them for help, completion, no command or an unknown word (commander suggests the nearest).
 */
export function entriesFor(argv: readonly string[], entries: readonly CommandEntry[]): readonly CommandEntry[] {
  const word = argv.find((arg) => !PROGRAM_FLAGS.has(arg));
  if (word === undefined) return argv.includes('-V') || argv.includes('--version') ? [] : entries;
  if (WHOLE_TREE.has(word)) return entries;
  const named = entries.filter((entry) => entry.name === word);
  return named.length > 0 ? named : entries;
}
