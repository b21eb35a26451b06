import { render } from 'ink';
import type { LockView } from '../core/lock-view.js';
import type { PollState } from '../core/poller.js';
import { InspectApp, type InspectAction } from './InspectApp.js';
import { createInspectStore, type ConnectionChange } from './inspect-store.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountInspectViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly keys: readonly string[];
  readonly target: string;
  readonly intervalMs: number;
  readonly onAction: (action: InspectAction) => void;
}

export interface LiveInspect {
  poll(state: PollState<readonly LockView[]>): void;
  connection(change: ConnectionChange): void;
  close(): Promise<void>;
}

/** Mounts `inspect --watch` on a terminal (imported lazily: it pulls in ink and react). */
export function mountInspectView(opts: MountInspectViewOptions): LiveInspect {
  const store = createInspectStore(opts);
  const instance = render(<InspectApp store={store} onAction={opts.onAction} />, {
    stdout: opts.stdout as NodeJS.WriteStream,
    stderr: opts.stderr as NodeJS.WriteStream,
    ...(opts.stdin ? { stdin: opts.stdin as NodeJS.ReadStream } : {}),
    // `p` and `q` need raw mode, which swallows Ctrl-C's signal: InspectApp reports it as 'interrupt'.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closed = false;
  return {
    poll: store.poll,
    connection: store.connection,
    close: async () => {
      if (closed) return;
      closed = true;
      store.end(Date.now());
      // Let React commit the last state, so the final frame stays on screen.
      await new Promise((resolve) => setTimeout(resolve, 50));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
