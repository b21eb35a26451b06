import type { Command } from 'commander';
import { displayWidth, reflow, widthOf } from '../core/text-layout.js';
import type { RunContext } from './context.js';

// Help reads at any terminal width: the prose after commander's own sections is re-flowed to the
// width of the stream help goes to (80 in a pipe), and commander's option and command tables wrap
// their descriptions there too, measured in display columns.

/** Prose for `addHelpText`, re-flowed when help is shown (the REPL's width may have changed since). */
export function prose(ctx: RunContext, text: string): () => string {
  return () => reflow(text, widthOf(ctx.stdout));
}

/** Commander's own help at the stream's width, measured by display width, wrapped even beside long option names. */
export function configureHelpWidth(program: Command, ctx: RunContext): Command {
  return program
    .configureOutput({ ...program.configureOutput(), getOutHelpWidth: () => widthOf(ctx.stdout), getErrHelpWidth: () => widthOf(ctx.stderr) })
    .configureHelp({ displayWidth, minWidthToWrap: 24 });
}
