import { Chalk, type ChalkInstance } from 'chalk';
import { PLAIN, type Paint } from '../core/paint.js';
import type { OutputStream, RunContext } from './context.js';

// Colour for one-shot output, per stream: on only for a terminal, off with NO_COLOR (any value but
// empty), FORCE_COLOR=0 or --no-color (the launcher turns both into FORCE_COLOR=0 before chalk
// loads; run() also hears --no-color itself, for the REPL and tests); FORCE_COLOR=1..3 forces it.

/** chalk's level for a stream: 0 none, 1 basic 16 colours, 2 256, 3 truecolor. */
export function colourLevel(stream: OutputStream, env: RunContext['env'], noColorFlag = false): 0 | 1 | 2 | 3 {
  if (noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return 0;
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== '') {
    const level = forced === 'true' ? 1 : Number(forced);
    return level >= 1 && level <= 3 ? (level as 1 | 2 | 3) : 0;
  }
  if (stream.isTTY !== true || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  return env.TERM?.includes('256') ? 2 : 1;
}

function paintWith(chalk: ChalkInstance): Paint {
  return { key: chalk.cyan, holder: chalk.green, error: chalk.red, warning: chalk.yellow };
}

/** How to colour what goes to `which` of this run's streams. */
export function paintFor(ctx: RunContext & { readonly noColor?: boolean }, which: 'stdout' | 'stderr'): Paint {
  const level = colourLevel(ctx[which], ctx.env, ctx.noColor === true);
  return level === 0 ? PLAIN : paintWith(new Chalk({ level }));
}
