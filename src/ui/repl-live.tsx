import { render } from 'ink';
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
  const instance = render(<ReplApp session={session} />, {
    stdout: opts.stdout as NodeJS.WriteStream,
    stderr: opts.stderr as NodeJS.WriteStream,
    stdin: opts.stdin as NodeJS.ReadStream,
    // Ctrl-C cancels the running command, not the REPL: the prompt sees it as a key.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  // Taken now: ink unmounts itself on SIGTERM / SIGHUP (signal-exit), and an exit promise asked for
  // after that would never settle, leaving nothing for the event loop to wait on but the release.
  const exited = instance.waitUntilExit();
  await opts.finished;
  // Let React commit the last frame (the final lines of output) before letting go of the terminal.
  await new Promise((resolve) => setTimeout(resolve, 50));
  instance.unmount();
  await exited;
}
