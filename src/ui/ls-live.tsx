import { render } from 'ink';
import type { PollState } from '../core/poller.js';
import type { LockScan } from '../inspect/scan-locks.js';
import { LsApp, type LsAction } from './LsApp.js';
import { createLsStore } from './ls-store.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountLsViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly pattern: string;
  readonly target: string;
  readonly intervalMs: number;
  readonly onAction: (action: LsAction) => void;
}

export interface LiveLs {
  poll(state: PollState<LockScan>): void;
  close(): Promise<void>;
}

/** Mounts `ls --watch` on a terminal (imported lazily: it pulls in ink and react). */
export function mountLsView(opts: MountLsViewOptions): LiveLs {
  const store = createLsStore(opts);
  const instance = render(
    <LsApp store={store} onAction={opts.onAction} />,
    {
      stdout: opts.stdout as NodeJS.WriteStream,
      stderr: opts.stderr as NodeJS.WriteStream,
      ...(opts.stdin ? { stdin: opts.stdin as NodeJS.ReadStream } : {}),
      // The keys need raw mode, which swallows Ctrl-C's signal: LsApp reports it as 'interrupt'.
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  let closed = false;
  return {
    poll: store.poll,
    close: async () => {
      if (closed) return;
      closed = true;
      // Let React commit the last state, so the final frame stays on screen.
      await new Promise((resolve) => setTimeout(resolve, 50));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
