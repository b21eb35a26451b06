import { createInterface } from 'node:readline/promises';
import { UsageError } from '../core/errors.js';
import type { RunContext } from './context.js';

/**
 * Asks a yes/no question on the terminal; without a terminal there is nobody to ask, so the
 * caller must have passed `--yes` (we never guess consent for a destructive action).
 */
export async function confirm(ctx: RunContext, question: string, refusalHint: string): Promise<boolean> {
  if (!ctx.stdin?.isTTY) throw new UsageError(refusalHint);
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr as NodeJS.WritableStream });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
