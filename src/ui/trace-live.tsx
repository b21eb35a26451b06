import type { TraceSession } from '../core/trace/session.js';
import { mountLive } from './mount-view.js';
import { TraceApp } from './TraceApp.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountTraceViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly what: string;
  readonly session: TraceSession;
  readonly stats: () => { readonly lagMs: number; readonly status?: string | undefined };
}

/** Mounts the live trace view (imported lazily: it pulls in ink and react); close() leaves the last frame. */
export function mountTraceView(opts: MountTraceViewOptions): { close(): Promise<void> } {
  return mountLive(<TraceApp session={opts.session} what={opts.what} stats={opts.stats} />, opts);
}
