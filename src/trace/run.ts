import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Finding } from '../core/trace/checker.js';
import type { TraceEvent } from '../core/trace/events.js';
import { eventJson, headerLine } from '../core/trace/recording.js';
import { TraceSession } from '../core/trace/session.js';
import { describeTarget, formatHostPort, type TargetSpec } from '../redis/target.js';
import type { TraceSourceKind } from './feed.js';
import { TraceSource, type SourceStats } from './source.js';

// A live trace from start to end: the source, the session that diagnoses it, the optional
// recording, and the end (--for elapsed, or the signal: Ctrl-C).

export interface TraceRunOptions {
  readonly spec: TargetSpec;
  readonly wants: (lock: string) => boolean;
  readonly forMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Write the decoded events here (NDJSON, the format `--from` reads). */
  readonly record?: string | undefined;
  readonly onEvents?: ((events: readonly TraceEvent[], found: readonly Finding[]) => void) | undefined;
  readonly onStatus?: (text: string) => void;
  /** MONITOR (default) or keyspace notifications. */
  readonly source?: TraceSourceKind | undefined;
  /** Keyspace only: turn on the notify-keyspace-events flags it needs, and put them back at the end. */
  readonly enableNotifications?: boolean | undefined;
  /** Redlock's independent primaries (`--nodes`, a Redlock sandbox's): each followed, the lock judged by majority. */
  readonly redlockNodes?: readonly TargetSpec[] | undefined;
  /** Once every feed is running: what is followed, and the live state for a view. */
  readonly onStart?: (what: string, session: TraceSession, source: TraceSource) => void;
}

export interface TraceRunResult {
  readonly session: TraceSession;
  readonly stats: SourceStats;
  readonly interrupted: boolean;
}

export async function runTrace(opts: TraceRunOptions): Promise<TraceRunResult> {
  // Events name a Redlock node by host:port (source.ts labels them so): the quorum view counts those.
  const nodes = opts.redlockNodes?.map(formatHostPort);
  const session = new TraceSession({ redlockNodes: nodes });
  let recording: WriteStream | undefined;
  const source = new TraceSource({
    spec: opts.spec,
    redlockNodes: opts.redlockNodes,
    wants: opts.wants,
    signal: opts.signal,
    source: opts.source,
    enableNotifications: opts.enableNotifications,
    onStatus: (text) => opts.onStatus?.(text),
    onEvents: (events) => {
      const found = session.push(events);
      if (recording) for (const e of events) recording.write(`${eventJson(e)}\n`);
      opts.onEvents?.(events, found);
    },
  });
  if (opts.record !== undefined) {
    recording = createWriteStream(opts.record, { flags: 'w' });
    await once(recording, 'open');
    const source = nodes ? `Redlock nodes ${nodes.join(', ')}` : describeTarget(opts.spec);
    recording.write(`${headerLine({ source, startedAt: Date.now(), ...(nodes ? { nodes } : {}) })}\n`);
  }
  try {
    const what = await source.start();
    opts.onStart?.(what, session, source);
    const ended = opts.forMs !== undefined ? sleep(opts.forMs, 'done', { signal: opts.signal }) : never(opts.signal);
    const how = await ended.catch(() => 'interrupted');
    return { session, stats: source.stats, interrupted: how === 'interrupted' };
  } finally {
    await source.stop();
    if (recording) {
      recording.end();
      await once(recording, 'finish');
    }
  }
}

/** Resolves never, rejects when the signal aborts. */
function never(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
}
