import { render } from 'ink';
import type { ReactElement } from 'react';
import { sleep } from '../core/sleep.js';
import { AtTerminalEdge } from './AtTerminalEdge.js';

interface Stream {
  write(text: string): unknown;
}

export interface LiveIo {
  readonly stdout: Stream;
  readonly stderr: Stream;
  /** For a view that takes keys (raw mode): it must then report Ctrl-C itself, which raw mode swallows. */
  readonly stdin?: NodeJS.ReadableStream | undefined;
}

export interface LiveOptions {
  /** Runs first on close(): the store's last word (flush, end, finish) before the last frame. */
  readonly beforeClose?: () => void;
  /** Let React commit the last update before unmounting, so the final frame stays on screen. */
  readonly settle?: boolean;
  /** Most frames a second ink draws, whatever triggers them (ink's default: 30). */
  readonly maxFps?: number;
}

export interface LiveView {
  /** Unmounts the view once (later calls wait for nothing), leaving its last frame on the terminal. */
  close(): Promise<void>;
}

// How long React gets to commit the last update before the view is unmounted.
const SETTLE_MS = 50;

/**
 * Renders a live view; Ctrl-C stays ours (exitOnCtrlC off): without stdin it remains a signal,
 * which the launcher turns into ctx.signal. close() unmounts it and leaves the last frame.
 * Every view is clipped at the terminal's edge (AtTerminalEdge), so no frame is wider than it.
 */
export function mountLive(element: ReactElement, io: LiveIo, opts: LiveOptions = {}): LiveView {
  const instance = render(<AtTerminalEdge>{element}</AtTerminalEdge>, {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    ...(io.stdin ? { stdin: io.stdin as NodeJS.ReadStream } : {}),
    exitOnCtrlC: false,
    patchConsole: false,
    ...(opts.maxFps !== undefined ? { maxFps: opts.maxFps } : {}),
  });
  // Taken now: ink unmounts itself on SIGTERM / SIGHUP (signal-exit), and an exit promise asked
  // for after that would never settle.
  const exited = instance.waitUntilExit();
  exited.catch(() => undefined); // seen by close(); never an unhandled rejection before it
  let closed = false;
  return {
    close: async () => {
      if (closed) return;
      closed = true;
      opts.beforeClose?.();
      if (opts.settle) await sleep(SETTLE_MS);
      instance.unmount();
      await exited;
    },
  };
}
