import { render } from 'ink';
import type { TraceSession } from '../core/trace/session.js';
import { TraceApp } from './TraceApp.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountTraceViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly what: string;
  readonly session: TraceSession;
  readonly stats: () => { readonly lagMs: number };
}

/** Mounts the live trace view (imported lazily: it pulls in ink and react); close() leaves the last frame. */
export function mountTraceView(opts: MountTraceViewOptions): { close(): Promise<void> } {
  const instance = render(<TraceApp session={opts.session} what={opts.what} lagMs={() => opts.stats().lagMs} />, {
    stdout: opts.stdout as NodeJS.WriteStream,
    stderr: opts.stderr as NodeJS.WriteStream,
    // No key handling: Ctrl-C stays a signal, which the launcher turns into ctx.signal.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closed = false;
  return {
    close: async () => {
      if (closed) return;
      closed = true;
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
