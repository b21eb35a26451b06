import type { Command } from 'commander';
import type { RunContext } from './context.js';

// Help reads at any terminal width: the prose after commander's own sections is re-flowed to the
// width of the stream help goes to (80 in a pipe), and commander's option and command tables wrap
// their descriptions there too, measured in display columns.
//
// The text layout (string-width, wrap-ansi, cli-truncate) loads only when help is about to be
// shown: every command line registers its help text, few show it, and loading the layout cost
// `--version` a fifth of its start-up. src/cli/program.ts awaits loadHelpLayout() for any program
// that may show help; a program built without help never lays any out.

type TextLayout = typeof import('../core/text-layout.js');
let layout: TextLayout | undefined;

/** Loads the text layout help is measured and wrapped with; call before help is shown. */
export async function loadHelpLayout(): Promise<void> {
  layout ??= await import('../core/text-layout.js');
}

function loaded(): TextLayout {
  if (layout === undefined) throw new Error('help was laid out before its text layout loaded: await loadHelpLayout() first');
  return layout;
}

/** Prose for `addHelpText`, re-flowed when help is shown (the REPL's width may have changed since). */
export function prose(ctx: RunContext, text: string): () => string {
  return () => loaded().reflow(text, loaded().widthOf(ctx.stdout));
}

/**
 * A usage error: one line in a pipe, where scripts read errors line by line; on a terminal,
 * wrapped between words at its width rather than cut by the terminal mid-word.
 */
export function usageErrorText(ctx: RunContext, text: string): string {
  return ctx.stderr.isTTY === true ? loaded().wrapText(text, loaded().widthOf(ctx.stderr)).join('\n') : text;
}

/** usageErrorText for any error line, loading the text layout first where a terminal needs it. */
export async function errorText(ctx: RunContext, text: string): Promise<string> {
  if (ctx.stderr.isTTY !== true) return text;
  await loadHelpLayout();
  return usageErrorText(ctx, text);
}

/** Commander's own help at the stream's width, measured by display width, wrapped even beside long option names. */
export function configureHelpWidth(program: Command, ctx: RunContext): Command {
  return program
    .configureOutput({
      ...program.configureOutput(),
      getOutHelpWidth: () => loaded().widthOf(ctx.stdout),
      getErrHelpWidth: () => loaded().widthOf(ctx.stderr),
    })
    .configureHelp({ displayWidth: (text) => loaded().displayWidth(text), minWidthToWrap: 24 });
}
