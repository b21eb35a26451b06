// What each lock's series are labelled with: its group (groups.ts), its kind and its library,
// learned from the trace's events as inspect learns them from the data.

import { tokenLibrary } from '../decode/token-library.js';
import type { TraceEvent } from '../trace/events.js';

export interface LockLabels {
  readonly group: string;
  readonly kind: string;
  readonly library: string;
}

/** A lock's kind from one of its events; undefined when the event does not tell (a plain release). */
export function kindOf(e: TraceEvent): string | undefined {
  if (e.kind === 'queue-join' || e.kind === 'queue-leave') return 'fair';
  if (e.library === 'token') return 'token';
  if (e.library === 'semaphore') return 'semaphore';
  if (e.library !== 'redisson') return undefined;
  if (e.kind === 'reader-join' || e.kind === 'reader-leave' || e.owner?.endsWith(':write')) return 'rw';
  return e.kind === 'acquired' || e.kind === 'attempt' || e.kind === 'refused' ? 'reentrant' : undefined;
}

/** The library that wrote it: Redisson's hash layout, or the token library its value looks like. */
export function libraryOf(e: TraceEvent): string | undefined {
  if (e.library === 'redisson') return 'redisson';
  if (e.library === 'semaphore') return 'semaphore';
  if (e.library === 'token' && e.owner !== undefined) return tokenLibrary(e.lock, e.owner, e.t);
  return undefined;
}
