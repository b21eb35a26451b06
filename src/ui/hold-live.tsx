import { render } from 'ink';
import type { HoldEvent } from '../core/hold-events.js';
import { HoldApp } from './HoldApp.js';
import { createHoldStore } from './hold-store.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountHoldViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly identity: { readonly key: string; readonly kind: string; readonly owner: string; readonly target?: string | undefined };
}

export interface LiveHold {
  emit(event: HoldEvent): void;
  childOutput(stream: 'stdout' | 'stderr', text: string): void;
  close(): Promise<void>;
}

/** Mounts the live view on a terminal (this module is imported lazily: it pulls in ink and react). */
export function mountHoldView(opts: MountHoldViewOptions): LiveHold {
  const store = createHoldStore(opts.identity);
  const instance = render(<HoldApp store={store} />, {
    stdout: opts.stdout as NodeJS.WriteStream,
    stderr: opts.stderr as NodeJS.WriteStream,
    ...(opts.stdin ? { stdin: opts.stdin as NodeJS.ReadStream } : {}),
    // No key handling: Ctrl-C stays a signal, which the launcher turns into ctx.signal.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closed = false;
  return {
    emit: store.emit,
    childOutput: store.write,
    close: async () => {
      if (closed) return;
      closed = true;
      store.flush();
      // Let React commit the last events, so the final frame (released / lost) stays on screen.
      await new Promise((resolve) => setTimeout(resolve, 50));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
