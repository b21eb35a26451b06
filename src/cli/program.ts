// The one commander program both hosts run: the CLI (src/main.ts) and the REPL (src/repl/). A
// fresh program per call, so the REPL can run commands side by side; commands load lazily, and so
// does everything that only help and usage errors need (see runProgram).
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import {
  addProgramConnectionOptions,
  applyConnectionOptions,
  ENVIRONMENT_HELP,
  hostHint,
} from '../commands/connection-flags.js';
import type { CommandContext, RunContext } from '../commands/context.js';
import { configureHelpWidth, errorText, loadHelpLayout, prose, usageErrorText } from '../commands/help-text.js';
import { errorJson } from '../core/error-json.js';
import { CliError } from '../core/errors.js';
import { EXIT_CODE_HELP, ExitCode, type ExitCodeValue } from '../core/exit-codes.js';
import { safeJson, safeLine, safeText } from '../core/terminal-text.js';
import { COMMANDS, entriesFor, type CommandEntry } from './commands.js';
import { addForeignCommands } from './foreign-commands.js';

export type { CommandEntry } from './commands.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Thrown by a program built without help where commander is about to print help or a usage error. */
class NeedsHelp extends Error {}
function needsHelp(): never {
  throw new NeedsHelp();
}

export interface BuildOptions {
  /**
   * false: a program that can only run commands. It has no `help` commands, examples or
   * program-wide help text, and throws NeedsHelp instead of printing help or a usage error,
   * before writing anything (the width is the first thing commander asks for when it lays out
   * help); runProgram then runs the line again on a whole program. Default true: the whole
   * program, help and all.
   */
  readonly help?: boolean;
}

/** The program with the given commands registered (all of them by default). */
export async function buildProgram(
  ctx: CommandContext,
  entries: readonly CommandEntry[] = COMMANDS,
  { help = true }: BuildOptions = {},
): Promise<Command> {
  const [registers, helpModules] = await Promise.all([
    Promise.all(entries.map((entry) => entry.load())),
    help ? loadHelpModules() : undefined,
  ]);
  const program = new Command('redlock-cli')
    .description('Inspect, hold, break and torture Redis distributed locks (Redisson, Redlock, token locks)')
    .version(pkg.version, '-V, --version')
    // -h is the host, as in redis-cli; every command inherits this before it is registered.
    .helpOption('--help', 'display help for command')
    .option('--debug', 'print stack traces for unexpected errors')
    .option('--no-color', 'plain output (also NO_COLOR=1)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void ctx.stdout.write(safeLine(text)),
      writeErr: (text) => void ctx.stderr.write(safeLine(text)),
      // Usage errors as one line in the same voice as ours: "redlock-cli: unknown command ... (Did you mean ...?)".
      outputError: (text, write) => {
        if (!helpModules) needsHelp();
        if (ctx.jsonErrors) write(errorJsonLine(ExitCode.usage, usageLine(text)));
        else write(`${helpModules.paintFor(ctx, 'stderr').error(usageErrorText(ctx, `redlock-cli: ${usageLine(text)}`))}\n`);
      },
    });
  configureHelpWidth(program, ctx);
  // Set before any command is registered: every command and subcommand shares this configuration.
  if (!helpModules) program.configureOutput({ ...program.configureOutput(), getOutHelpWidth: needsHelp, getErrHelpWidth: needsHelp });
  addProgramConnectionOptions(program);
  for (const register of registers) register(program, ctx);
  addForeignCommands(program);
  if (helpModules) {
    program.addHelpText('afterAll', prose(ctx, `\n${ENVIRONMENT_HELP}\n\n${EXIT_CODE_HELP}\n`));
    helpModules.registerHelp(program, ctx); // after every command: `help sandbox up` follows the tree
  }
  // --no-color, then the program's connection values to the command, --sandbox, --target, redis-cli's flags.
  program.hook('preAction', (_program, actionCommand) => {
    ctx.noColor = program.opts().color === false;
    return applyConnectionOptions(program, actionCommand, ctx);
  });
  helpModules?.addExamples(program, ctx);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(program.configureOutput());
  return program;
}

/**
 * commander's usage error as one line. It quotes what was typed ("argument 'x' is invalid"), so
 * the whole message is escaped; the one line break of its own, before "(Did you mean ...?)",
 * becomes a space.
 */
export function usageLine(text: string): string {
  const [, message = text, suggestion] = /^(?:error: )?([^]*?)(?:\n(\(Did you mean [^\n]*\?\)))?\n*$/.exec(text) ?? [];
  return hostHint([message, suggestion].filter((part) => part !== undefined).map(safeText).join(' '));
}

/**
 * The line asks for --json (before any `--`: what follows is another program's): its error, if it
 * fails, is then one JSON object on stderr. Read from the words, as --debug is, because a usage
 * error comes before commander has parsed the line whole (`inspect --bogus --json`).
 */
export function asksForJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** The error object of docs/json/error.schema.json as one line (escaped like every --json output). */
const errorJsonLine = (exit: ExitCodeValue, message: string, stack?: string): string =>
  `${safeJson(JSON.stringify(errorJson(exit, message, stack)))}\n`;

/** What only help and usage errors need: the help commands and examples, their text layout, colour. */
async function loadHelpModules() {
  const [help, examples, colour] = await Promise.all([
    import('../commands/help.js'),
    import('../commands/help-examples.js'),
    import('../commands/colour.js'),
    loadHelpLayout(),
  ]);
  return { registerHelp: help.registerHelp, addExamples: examples.addExamples, paintFor: colour.paintFor };
}

/** Runs one command line on the given commands and returns its exit code; never calls process.exit. */
export async function runProgram(
  argv: readonly string[],
  runCtx: RunContext,
  entries: readonly CommandEntry[] = COMMANDS,
): Promise<number> {
  // No arguments on a terminal: the interactive home. Piped or scripted, it stays the help.
  const args = argv.length === 0 && runCtx.stdin?.isTTY === true && runCtx.stdout.isTTY === true ? ['repl'] : argv;
  // Most lines run a command and print neither help nor a usage error: they run on a program
  // without help, which loads a fifth faster. A line that turns out to need help or to report
  // a usage error stops before anything was written or run (commander checks the line before
  // any hook or action) and runs again on the whole program, which prints exactly what it did.
  const first = await parseOn(args, runCtx, entries, false);
  if (first !== RUN_AGAIN) return first;
  const second = await parseOn(args, runCtx, entries, true);
  if (second === RUN_AGAIN) throw new Error('a program built with help asked for help again');
  return second;
}

const RUN_AGAIN = Symbol('run again with help');

async function parseOn(
  args: readonly string[],
  runCtx: RunContext,
  entries: readonly CommandEntry[],
  help: boolean,
): Promise<number | typeof RUN_AGAIN> {
  const ctx: CommandContext = { ...runCtx, exitCode: ExitCode.ok, jsonErrors: asksForJson(args) };
  try {
    const program = await buildProgram(ctx, entriesFor(args, entries), { help });
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof NeedsHelp) return RUN_AGAIN;
    if (err instanceof CommanderError) {
      // Help and --version "fail" with exit code 0; usage errors were already printed by commander.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    return printError(ctx, err, args.includes('--debug'));
  }
}

/** The one place a failed command's error is printed: one line of text, or under --json one JSON object. */
async function printError(ctx: CommandContext, err: unknown, debug: boolean): Promise<ExitCodeValue> {
  const exit = err instanceof CliError ? err.exitCode : ExitCode.unexpected;
  const message = err instanceof Error ? err.message : String(err);
  const stack = debug && err instanceof Error && !(err instanceof CliError) ? err.stack : undefined;
  if (ctx.jsonErrors) {
    ctx.stderr.write(errorJsonLine(exit, message, stack));
    return exit;
  }
  const { paintFor } = await import('../commands/colour.js');
  const red = paintFor(ctx, 'stderr').error;
  // An error is one line: a value it quotes is escaped whole, newlines and colour codes too.
  if (err instanceof CliError) {
    ctx.stderr.write(`${red(await errorText(ctx, `redlock-cli: ${safeText(message)}`))}\n`);
    return exit;
  }
  ctx.stderr.write(`${red(`redlock-cli: unexpected error: ${stack !== undefined ? safeLine(stack) : `${safeText(message)} (run with --debug for details)`}`)}\n`);
  return exit;
}
