// The REPL's quick start. `redlock-cli repl [--url u] [--clients A,B] [--interval d]` (or no
// arguments) on a terminal mounts the screen first and loads the CLI behind it, so the first
// prompt waits for ink alone, not for every command module and ioredis as well. Anything else
// (--help, --sandbox, --target, a bad value) returns no plan and goes the ordinary way through
// commander, which also owns every error message. Light imports only.

import { readFileSync } from 'node:fs';
import type { RunContext } from '../commands/context.js';
import { parseDuration } from '../core/duration.js';
import { ExitCode } from '../core/exit-codes.js';
import { safeLine } from '../core/terminal-text.js';
import { DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS } from '../core/poller.js';
import { DEFAULT_URL, describeEndpoint, parseEndpointUrl } from '../core/endpoint.js';
import { targetsFile } from '../state/paths.js';
import { bootController } from './boot.js';
import { historyFile, loadHistory } from './history.js';

export interface FastPlan {
  readonly url: string;
  readonly clients?: readonly string[] | undefined;
  readonly intervalMs: number;
}

const CLIENT = /^[A-Za-z][A-Za-z0-9_-]{0,15}$/;
// Options the launcher may see that change nothing here (the launcher already applied --no-color).
const HARMLESS = new Set(['--no-color', '--debug']);

/** A plan for the quick start, or undefined when the ordinary path must decide. */
export function fastReplPlan(args: readonly string[], env: Readonly<Record<string, string | undefined>>): FastPlan | undefined {
  if (args.length > 0 && args[0] !== 'repl') return undefined;
  // A password from REDISCLI_AUTH or a current target is the ordinary path's to resolve.
  if (env.REDISCLI_AUTH || (!env.REDIS_URL?.trim() && mayHaveCurrentTarget(env))) return undefined;
  let url = env.REDIS_URL?.trim() ? env.REDIS_URL : DEFAULT_URL;
  let clients: string[] | undefined;
  let intervalMs = DEFAULT_INTERVAL_MS;
  try {
    for (let i = 1; i < args.length; i++) {
      const arg = args[i]!;
      if (HARMLESS.has(arg)) continue;
      const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      const value = inline ?? args[++i];
      if (value === undefined) return undefined;
      if (flag === '-u' || flag === '--url') url = value;
      else if (flag === '--clients') clients = value.split(',').map((c) => c.trim());
      else if (flag === '--interval') intervalMs = Math.max(MIN_INTERVAL_MS, parseDuration(value, '--interval'));
      else return undefined;
    }
    parseEndpointUrl(url);
  } catch {
    return undefined;
  }
  if (clients && (clients.length === 0 || !clients.every((c) => CLIENT.test(c)))) return undefined;
  return { url, clients, intervalMs };
}

/** Whether `target use` chose a target (read without the schema: this path stays light). */
function mayHaveCurrentTarget(env: Readonly<Record<string, string | undefined>>): boolean {
  try {
    return typeof (JSON.parse(readFileSync(targetsFile(env), 'utf8')) as { current?: unknown }).current === 'string';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT'; // unreadable: let the ordinary path say why
  }
}

// Return to the start of the line and clear it (ESC [ 2 K): ink's first frame is drawn there.
const CLEAR_LINE = '\r\x1b[2K';

/**
 * The prompt, written before ink and react have loaded (a tenth of a second or more on a busy
 * machine): what a user waits for is on screen at once. The terminal goes to raw mode with it, as
 * ink would put it, so keys typed meanwhile are neither echoed nor cooked into lines but wait
 * in the terminal for ink to read them; the returned function clears the line for ink's first frame,
 * which draws the same prompt in the same place.
 */
function promptBeforeInk(ctx: RunContext, prompt: string): () => void {
  const stdin = ctx.stdin as (NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown }) | undefined;
  stdin?.setRawMode?.(true);
  ctx.stdout.write(safeLine(prompt));
  return () => void ctx.stdout.write(CLEAR_LINE);
}

/** Mounts the screen, then loads the session behind it; resolves with the exit code. */
export async function runFastRepl(plan: FastPlan, ctx: RunContext): Promise<number> {
  const clients = plan.clients ?? ['A', 'B'];
  const boot = bootController({
    client: clients[0]!,
    clients,
    target: describeEndpoint(parseEndpointUrl(plan.url)),
    intervalMs: plan.intervalMs,
    history: loadHistory(historyFile(ctx.env)),
  });
  const handOver = promptBeforeInk(ctx, boot.getSnapshot().prompt);
  const { runReplView } = await import('../ui/repl-live.js');
  let finished!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finished = resolve));
  handOver();
  const view = runReplView(boot, { stdout: ctx.stdout as NodeJS.WritableStream, stderr: ctx.stderr as NodeJS.WritableStream, stdin: ctx.stdin!, finished: done });
  try {
    const [{ createSession }, { urlTarget }, { shutdownRepl }] = await Promise.all([import('./start.js'), import('./target.js'), import('./exit.js')]);
    const session = await createSession(ctx.env, {
      target: urlTarget(plan.url),
      clients: plan.clients,
      intervalMs: plan.intervalMs,
      columns: () => ctx.stdout.columns ?? 80,
    });
    const onSignal = (): void => void shutdownRepl(session);
    ctx.signal?.addEventListener('abort', onSignal, { once: true });
    boot.ready(session);
    void session.finished.then(finished);
    await view;
    ctx.signal?.removeEventListener('abort', onSignal);
    return ctx.signal?.aborted ? ExitCode.interrupted : await session.finished;
  } catch (err) {
    boot.failed(`redlock-cli: could not start the REPL: ${err instanceof Error ? err.message : String(err)}`);
    finished(ExitCode.unexpected);
    await view;
    return ExitCode.unexpected;
  }
}
