import type { HoldEvent, HoldMode } from '../core/hold-events.js';
import { HoldApp } from './HoldApp.js';
import { createHoldStore } from './hold-store.js';
import { mountLive } from './mount-view.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountHoldViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly identity: { readonly key: string; readonly kind: string; readonly owner: string; readonly target?: string | undefined; readonly mode?: HoldMode | undefined };
}

export interface LiveHold {
  emit(event: HoldEvent): void;
  childOutput(stream: 'stdout' | 'stderr', text: string): void;
  close(): Promise<void>;
}

/** Mounts the live view on a terminal (this module is imported lazily: it pulls in ink and react). */
export function mountHoldView(opts: MountHoldViewOptions): LiveHold {
  const store = createHoldStore(opts.identity);
  // No key handling: Ctrl-C stays a signal. The final frame (released / lost) stays on screen.
  const view = mountLive(<HoldApp store={store} />, opts, { beforeClose: store.flush, settle: true });
  return { emit: store.emit, childOutput: store.write, close: view.close };
}
