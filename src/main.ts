import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CliError } from './core/errors.js';
import { EXIT_CODE_HELP, ExitCode } from './core/exit-codes.js';
import { registerAcquire } from './commands/acquire.js';
import { registerCompletion } from './commands/completion.js';
import type { CommandContext, RunContext } from './commands/context.js';
import { registerDoctor } from './commands/doctor.js';
import { addExamples } from './commands/help-examples.js';
import { registerHelp } from './commands/help.js';
import { configureHelpWidth, prose } from './commands/help-text.js';
import { paintFor } from './commands/colour.js';
import { registerForceUnlock } from './commands/force-unlock.js';
import { registerHold } from './commands/hold.js';
import { registerInspect } from './commands/inspect.js';
import { registerLs } from './commands/ls.js';
import { registerRace } from './commands/race.js';
import { registerRelease } from './commands/release.js';
import { registerRenew } from './commands/renew.js';
import { registerRepl } from './commands/repl.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerScenario } from './commands/scenario.js';
import { registerTarget } from './commands/target.js';
import { addProgramConnectionOptions, applyConnectionOptions, ENVIRONMENT_HELP, hostHint } from './commands/connection-flags.js';
import { safeLine } from './core/terminal-text.js';

export type { RunContext } from './commands/context.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Builds a fresh program per call, so the CLI and the REPL can run commands side by side. */
export function buildProgram(ctx: CommandContext): Command {
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
      outputError: (text, write) =>
        write(`${paintFor(ctx, 'stderr').error(`redlock-cli: ${hostHint(text.replace(/^error: /, '').replace(/\s*\n+\s*(?=\S)/g, ' ').trim())}`)}\n`),
    })
    .addHelpText('afterAll', prose(ctx, `\n${ENVIRONMENT_HELP}\n\n${EXIT_CODE_HELP}\n`));
  configureHelpWidth(program, ctx);
  addProgramConnectionOptions(program);
  registerAcquire(program, ctx);
  registerHold(program, ctx);
  registerRenew(program, ctx);
  registerRelease(program, ctx);
  registerForceUnlock(program, ctx);
  registerSandbox(program, ctx);
  registerScenario(program, ctx);
  registerInspect(program, ctx);
  registerLs(program, ctx);
  registerDoctor(program, ctx);
  registerRace(program, ctx);
  registerRepl(program, ctx);
  registerTarget(program, ctx);
  registerCompletion(program, ctx);
  registerHelp(program, ctx); // after every command: `help sandbox up` follows the tree
  program.hook('preAction', (_program, actionCommand) => {
    ctx.noColor = program.opts().color === false;
    return applyConnectionOptions(program, actionCommand, ctx);
  });
  addExamples(program, ctx);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(program.configureOutput());
  return program;
}

/** Runs one command line and returns its exit code; never calls process.exit. */
export async function run(argv: readonly string[], runCtx: RunContext): Promise<number> {
  const ctx: CommandContext = { ...runCtx, exitCode: ExitCode.ok };
  const program = buildProgram(ctx);
  // No arguments on a terminal: the interactive home. Piped or scripted, it stays the help.
  const args = argv.length === 0 && runCtx.stdin?.isTTY === true && runCtx.stdout.isTTY === true ? ['repl'] : argv;
  try {
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
