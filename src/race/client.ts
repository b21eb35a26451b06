// One logical race client: acquire (waiting up to --wait), enter, a read-modify-write of the
// counter spanning the hold, a fenced write of the result, leave, release; again until the race
// stops. Every step is recorded for the checker. The increment spans the hold on purpose: any two
// clients inside at once then lose an increment, so the counter shows what the checker finds.

import { STOPPED, TIMED_OUT } from '../core/race/tally.js';
import { formatMs } from '../core/duration.js';
import { sleep } from '../core/sleep.js';
import type { Recorder } from './recorder.js';
import type { Grant, LockSession } from './session.js';

/** The demo resource as a client reaches it: in this process, or in the parent over IPC. */
export interface ResourcePort {
  read(key: string): Promise<number>;
  set(key: string, value: number): Promise<void>;
  write(key: string, writer: string, token: number | undefined, value: number): Promise<boolean>;
}

export interface ClientDeps {
  readonly name: string;
  readonly key: string;
  readonly session: LockSession;
  readonly resource: ResourcePort;
  readonly rec: Recorder;
  /** The next hold time (ms). */
  readonly hold: () => number;
  readonly waitMs: number;
}

// After an error (connection lost, failover in progress) a client backs off instead of spinning.
const ERROR_BACKOFF_MS = 50;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class RaceClient {
  // One signal per client: a thousand listeners on one shared signal make every wait's
  // addEventListener walk them all (EventTarget checks for duplicates).
  private readonly stopper = new AbortController();
  private dead = false;
  private frozenUntil: Promise<void> | undefined;
  private thaw: (() => void) | undefined;
  /** Between an acquire ok and the release: the chaos picks its victims among these. */
  holding = false;

  constructor(private readonly d: ClientDeps) {}

  get name(): string {
    return this.d.name;
  }

  /** Waiting stops at once; a client inside finishes its cycle first. */
  stop(): void {
    this.stopper.abort();
  }

  /** Loops until the race stops or the client crashes; never throws. */
  async run(): Promise<void> {
    const { d } = this;
    const stopping = this.stopper.signal;
    while (!stopping.aborted && !this.dead) {
      await this.frozenUntil;
      const id = d.rec.invoke(d.name, 'acquire');
      let grant: Grant | undefined;
      let refusals = 0;
      try {
        grant = await d.session.acquire(d.waitMs, stopping, () => void refusals++);
      } catch (err) {
        if (this.dead) return;
        d.rec.done(d.name, 'acquire', id, 'fail', { detail: stopping.aborted ? STOPPED : messageOf(err), refusals });
        await sleep(ERROR_BACKOFF_MS);
        continue;
      }
      if (this.dead) return;
      if (!grant) {
        d.rec.done(d.name, 'acquire', id, 'fail', { detail: stopping.aborted ? STOPPED : TIMED_OUT, refusals });
        continue;
      }
      d.rec.done(d.name, 'acquire', id, 'ok', {
        leaseMs: grant.leaseMs,
        refusals,
        ...(grant.token !== undefined ? { token: grant.token } : {}),
        ...(grant.serverWaitMs !== undefined ? { serverWaitMs: grant.serverWaitMs } : {}),
      });
      this.holding = true;
      if (!(await this.inside(grant.token))) return;
      await this.release();
      this.holding = false;
    }
  }

  /** The critical section; false when the client crashed in it. */
  private async inside(token: number | undefined): Promise<boolean> {
    const { d } = this;
    await this.frozenUntil;
    if (this.dead) return false;
    d.rec.instant(d.name, 'enter');
    const incr = d.rec.invoke(d.name, 'incr');
    const read = await d.resource.read(d.key);
    await sleep(d.hold());
    // A pause that began during the hold stretches it: the process does nothing until resumed.
    await this.frozenUntil;
    if (this.dead) return false;
    await d.resource.set(d.key, read + 1);
    if (this.dead) return false;
    d.rec.done(d.name, 'incr', incr, 'ok', { read, value: read + 1, accepted: true });
    const write = d.rec.invoke(d.name, 'write', { value: read + 1, ...(token !== undefined ? { token } : {}) });
    const accepted = await d.resource.write(d.key, d.name, token, read + 1);
    if (this.dead) return false;
    d.rec.done(d.name, 'write', write, 'ok', { accepted, value: read + 1, ...(token !== undefined ? { token } : {}) });
    d.rec.instant(d.name, 'leave');
    return true;
  }

  private async release(): Promise<void> {
    const { d } = this;
    await this.frozenUntil;
    if (this.dead) return;
    const id = d.rec.invoke(d.name, 'release');
    try {
      const { outcome, serverHoldMs } = await d.session.release();
      if (!this.dead) d.rec.done(d.name, 'release', id, 'ok', { detail: outcome, ...(serverHoldMs !== undefined ? { serverHoldMs } : {}) });
    } catch (err) {
      if (!this.dead) d.rec.done(d.name, 'release', id, 'fail', { detail: messageOf(err) });
    }
  }

  /** The watchdog's report that the lock went away while this client still counted on it. */
  lost(reason: string): void {
    if (!this.dead) this.d.rec.lockLost(this.d.name, reason);
  }

  /** Freezes this client (its loop and its renewals) for `ms`, like a GC pause; recorded as a pause. */
  pause(ms: number): Promise<void> {
    if (this.frozenUntil || this.dead) return Promise.resolve();
    const id = this.d.rec.invoke(this.d.name, 'pause', { detail: formatMs(ms) });
    this.d.session.freeze();
    this.frozenUntil = new Promise<void>((resolve) => (this.thaw = resolve));
    return sleep(ms).then(() => this.resume(id));
  }

  private resume(id: number): void {
    if (!this.dead) this.d.rec.done(this.d.name, 'pause', id, 'ok');
    this.frozenUntil = undefined;
    this.d.session.thaw();
    this.thaw?.();
  }

  /** The process dies: no release, no further step counts. */
  crash(): void {
    if (this.dead) return;
    this.d.rec.instant(this.d.name, 'crash');
    this.dead = true;
    this.holding = false;
    this.d.session.crash();
    this.stopper.abort();
    this.thaw?.();
  }

  close(): Promise<void> {
    return this.dead ? Promise.resolve() : this.d.session.close();
  }
}
