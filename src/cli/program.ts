// The one commander program both hosts run: the CLI (src/main.ts) and the REPL (src/repl/). A
// fresh program per call, so the REPL can run commands side by side; commands load lazily.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import {
  addProgramConnectionOptions,
  applyConnectionOptions,
  ENVIRONMENT_HELP,
  hostHint,
} from '../commands/connection-flags.js';
import { paintFor } from '../commands/colour.js';
import type { CommandContext, RunContext } from '../commands/context.js';
import { configureHelpWidth, prose } from '../commands/help-text.js';
import { addExamples } from '../commands/help-examples.js';
import { registerHelp } from '../commands/help.js';
import { CliError } from '../core/errors.js';
import { EXIT_CODE_HELP, ExitCode } from '../core/exit-codes.js';
import { safeLine } from '../core/terminal-text.js';
import { COMMANDS, entriesFor, type CommandEntry } from './commands.js';

export type { CommandEntry } from './commands.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The program with the given commands registered (all of them by default). */
export async function buildProgram(ctx: CommandContext, entries: readonly CommandEntry[] = COMMANDS): Promise<Command> {
  const registers = await Promise.all(entries.map((entry) => entry.load()));
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
        const line = hostHint(text.replace(/^error: /, '').replace(/\s*\n+\s*(?=\S)/g, ' ').trim());
        write(`${paintFor(ctx, 'stderr').error(`redlock-cli: ${line}`)}\n`);
      },
    })
    .addHelpText('afterAll', prose(ctx, `\n${ENVIRONMENT_HELP}\n\n${EXIT_CODE_HELP}\n`));
  configureHelpWidth(program, ctx);
  addProgramConnectionOptions(program);
  for (const register of registers) register(program, ctx);
  registerHelp(program, ctx); // after every command: `help sandbox up` follows the tree
  // --no-color, then the program's connection values to the command, --sandbox, --target, redis-cli's flags.
  program.hook('preAction', (_program, actionCommand) => {
    ctx.noColor = program.opts().color === false;
    return applyConnectionOptions(program, actionCommand, ctx);
  });
  addExamples(program, ctx);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(program.configureOutput());
  return program;
}

/** Runs one command line on the given commands and returns its exit code; never calls process.exit. */
export async function runProgram(
  argv: readonly string[],
  runCtx: RunContext,
  entries: readonly CommandEntry[] = COMMANDS,
): Promise<number> {
  const ctx: CommandContext = { ...runCtx, exitCode: ExitCode.ok };
  // No arguments on a terminal: the interactive home. Piped or scripted, it stays the help.
  const args = argv.length === 0 && runCtx.stdin?.isTTY === true && runCtx.stdout.isTTY === true ? ['repl'] : argv;
  try {
    const program = await buildProgram(ctx, entriesFor(args, entries));
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version "fail" with exit code 0; usage errors were already printed by commander.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const red = paintFor(ctx, 'stderr').error;
    if (err instanceof CliError) {
      ctx.stderr.write(`${red(`redlock-cli: ${safeLine(err.message)}`)}\n`);
      return err.exitCode;
    }
    const debug = argv.includes('--debug');
    const message = err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
    ctx.stderr.write(`${red(`redlock-cli: unexpected error: ${safeLine(message)}${debug ? '' : ' (run with --debug for details)'}`)}\n`);
    return ExitCode.unexpected;
  }
}
