import { mountLive } from './mount-view.js';
import { ReplApp, type ReplController } from './ReplApp.js';

export interface ReplViewOptions {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  /** Resolves when the session has ended and closed what it opened. */
  readonly finished: Promise<unknown>;
}

/** Mounts the REPL on the terminal until the session ends (imported lazily: it pulls in ink and react). */
export async function runReplView(session: ReplController, opts: ReplViewOptions): Promise<void> {
  // Ctrl-C cancels the running command, not the REPL: the prompt sees it as a key.
  const view = mountLive(<ReplApp session={session} />, opts, { settle: true });
  await opts.finished;
  // The final lines of output stay on screen when the terminal is let go.
  await view.close();
}
