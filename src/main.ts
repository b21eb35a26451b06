// The CLI host: one command line from bin/ through the shared program to an exit code.
import type { RunContext } from './commands/context.js';
import { runProgram } from './cli/program.js';
import { ALL_COMMANDS } from './repl/entry.js';

export type { RunContext } from './commands/context.js';

/** Runs one command line and returns its exit code; never calls process.exit. */
export function run(argv: readonly string[], ctx: RunContext): Promise<number> {
  return runProgram(argv, ctx, ALL_COMMANDS);
}
