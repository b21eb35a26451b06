// The one poller behind every live view and its `--json` twin (CONTRIBUTING.md, house rules): a
// setTimeout chain, so a tick never starts before the previous one has answered or been given up
// on (timeout), and errors back off and recover by themselves. Pure: timers and the injected
// fetch only, no I/O of its own.

/** What the poller reports; the view and the NDJSON stream both fold these. */
export type PollState<T> =
  /** A tick succeeded: `at` is when its read was sent (local clock), `tick` counts successes from 1. */
  | { readonly type: 'ok'; readonly at: number; readonly tookMs: number; readonly tick: number; readonly snapshot: T }
  /** A tick failed (or got no answer in time); the next try is `retryInMs` after `at`. */
  | { readonly type: 'retrying'; readonly at: number; readonly error: string; readonly retryInMs: number; readonly failures: number }
  | { readonly type: 'paused'; readonly at: number }
  /** Polling again; a tick follows immediately. */
  | { readonly type: 'resumed'; readonly at: number };

/** Intervals below this would turn a watch into load on the server it is watching. */
export const MIN_INTERVAL_MS = 100;
export const DEFAULT_INTERVAL_MS = 1000;
/** Failed ticks are retried after 1 s, 2 s, 4 s, then every 8 s until one succeeds. */
export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 8000;
/** A snapshot normally answers in milliseconds; one that takes this long counts as failed. */
export const DEFAULT_TIMEOUT_MS = 3000;

export interface PollerOptions<T> {
  readonly fetch: () => Promise<T>;
  /** Start-to-start period of successful ticks; raised to MIN_INTERVAL_MS. */
  readonly intervalMs: number;
  readonly onState: (state: PollState<T>) => void;
  readonly timeoutMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

export interface Poller {
  /** First tick immediately. */
  start(): void;
  pause(): void;
  resume(): void;
  /** Reads now instead of waiting out the interval or a backoff (e.g. the connection is back). */
  refresh(): void;
  /** Pauses a running poller, resumes a paused one; returns whether it is paused now. */
  togglePause(): boolean;
  /** For good: a read still in flight is ignored when it answers. */
  stop(): void;
  readonly paused: boolean;
}

/** The interval actually used for a requested one. */
export const effectiveInterval = (ms: number): number => Math.max(MIN_INTERVAL_MS, ms);

/** Delay before retry number `failures` (1-based). */
export const backoffMs = (failures: number): number => Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, failures - 1));

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

class TimeoutError extends Error {}

/** Creates a stopped poller; call start(). */
export function createPoller<T>(opts: PollerOptions<T>): Poller {
  const now = opts.now ?? Date.now;
  const interval = effectiveInterval(opts.intervalMs);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let stopped = false;
  let paused = false;
  let inFlight = false;
  let failures = 0;
  let ticks = 0;
  // Bumped by pause/stop: a read that answers after them belongs to an older generation and is dropped.
  let generation = 0;

  const schedule = (delay: number): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), Math.max(0, delay));
  };

  /** Rejects after timeoutMs; the read itself cannot be cancelled, only ignored. */
  const withTimeout = (promise: Promise<T>): Promise<T> => {
    let guard: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      guard = setTimeout(() => reject(new TimeoutError(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(guard));
  };

  const tick = async (): Promise<void> => {
    if (stopped || paused || inFlight) return;
    const mine = generation;
    const at = now();
    inFlight = true;
    let outcome: { ok: true; snapshot: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, snapshot: await withTimeout(Promise.resolve().then(opts.fetch)) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      inFlight = false;
    }
    if (stopped || mine !== generation) {
      // Paused and resumed while this read was out: resume() skipped its tick because one was in
      // flight, so start the chain again now.
      if (!stopped && !paused) void tick();
      return;
    }
    const end = now();
    if (outcome.ok) {
      failures = 0;
      ticks += 1;
      opts.onState({ type: 'ok', at, tookMs: end - at, tick: ticks, snapshot: outcome.snapshot });
      // Start-to-start cadence, but never back to back: reads slower than the interval get a
      // pause of half an interval between them, so a struggling server is not hammered.
      if (!stopped && !paused && mine === generation) schedule(Math.max(at + interval, end + interval / 2) - end);
    } else {
      failures += 1;
      const retryInMs = backoffMs(failures);
      opts.onState({ type: 'retrying', at: end, error: errorText(outcome.error), retryInMs, failures });
      if (!stopped && !paused && mine === generation) schedule(retryInMs);
    }
  };

  const poller: Poller = {
    start() {
      if (started || stopped) return;
      started = true;
      schedule(0);
    },
    pause() {
      if (!started || stopped || paused) return;
      paused = true;
      generation += 1;
      clearTimeout(timer);
      opts.onState({ type: 'paused', at: now() });
    },
    resume() {
      if (stopped || !paused) return;
      paused = false;
      generation += 1;
      // A failed streak starts over: the user asked for a fresh look now.
      failures = 0;
      opts.onState({ type: 'resumed', at: now() });
      if (!inFlight) schedule(0);
    },
    refresh() {
      // A read in flight will schedule the next one itself; paused means paused.
      if (!started || stopped || paused || inFlight) return;
      clearTimeout(timer);
      void tick();
    },
    togglePause() {
      if (paused) poller.resume();
      else poller.pause();
      return paused;
    },
    stop() {
      stopped = true;
      generation += 1;
      clearTimeout(timer);
    },
    get paused() {
      return paused;
    },
  };
  return poller;
}
