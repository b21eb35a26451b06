// Wires the REPL together: the CLI's own program (for dispatch and completion), the session, the
// history file, and the ink view. Loaded only by `redlock-cli repl`.

import type { RunContext } from '../commands/context.js';
import { ExitCode } from '../core/exit-codes.js';
import { buildProgram, runProgram } from '../cli/program.js';
import { COMMANDS } from '../cli/commands.js';
import { attachSandbox } from './attach.js';
import { commandTree } from '../commands/completion-tree.js';
import { shutdownRepl } from './exit.js';
import { appendHistory, historyFile, loadHistory } from './history.js';
import { ReplSession } from './session.js';
import type { ReplTarget } from './target.js';

export interface ReplSettings {
  readonly target: ReplTarget;
  readonly clients?: readonly string[] | undefined;
  readonly intervalMs: number;
  /** Attach this sandbox at start (`true`: the only one up). */
  readonly sandbox?: string | true | undefined;
  readonly columns?: (() => number) | undefined;
}

/** A started session on the real CLI: commands dispatch through the shared program. */
export async function createSession(env: Readonly<Record<string, string | undefined>>, settings: ReplSettings): Promise<ReplSession> {
  const quiet = { write: () => true };
  // Every command but `repl` itself, which is not run from inside (and would make this file load itself).
  const tree = commandTree(await buildProgram({ stdout: quiet, stderr: quiet, env, exitCode: 0 }, COMMANDS));
  const run = (argv: readonly string[], ctx: RunContext): Promise<number> => runProgram(argv, ctx, COMMANDS);
  const file = historyFile(env);
  const session = new ReplSession({
    run,
    tree,
    env,
    target: settings.target,
    clients: settings.clients,
    intervalMs: settings.intervalMs,
    columns: settings.columns,
    history: loadHistory(file),
    onHistory: (line) => appendHistory(file, line),
  });
  session.start();
  if (settings.sandbox !== undefined) {
    await attachSandbox(session, settings.sandbox === true ? undefined : settings.sandbox, '--sandbox <name>').catch((err: unknown) =>
      session.print(err instanceof Error ? err.message : String(err), 'error'),
    );
  }
  return session;
}

/** Runs the REPL on the terminal until `exit`; SIGTERM / SIGHUP release what the clients hold and leave. */
export async function startRepl(ctx: RunContext, settings: ReplSettings): Promise<number> {
  const [session, { runReplView }] = await Promise.all([
    createSession(ctx.env, { ...settings, columns: () => ctx.stdout.columns ?? 80 }),
    import('../ui/repl-live.js'),
  ]);
  const onSignal = (): void => void shutdownRepl(session);
  ctx.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    await runReplView(session, {
      stdout: ctx.stdout as NodeJS.WritableStream,
      stderr: ctx.stderr as NodeJS.WritableStream,
      stdin: ctx.stdin!,
      finished: session.finished,
    });
    return ctx.signal?.aborted ? ExitCode.interrupted : await session.finished;
  } finally {
    ctx.signal?.removeEventListener('abort', onSignal);
  }
}
