import type { ServerEvent } from '../core/scenario/history.js';
import { holdsIn } from '../locks/watchdog.js';
import type { Holder } from '../locks/types.js';
import type { LockReader } from './reader.js';
import type { Recorder } from './recorder.js';
import { sleep } from '../core/sleep.js';

/** How often the observer reads the lock key on each node (wall clock). */
export const OBSERVE_EVERY_MS = 25;

/** Maps a raw holder (hash field or token) to a client name, or keeps it raw when no client has it. */
export type OwnerNames = (owner: string) => string;

/**
 * Records `server` events: what each node (each Redlock node, or the current primary) says about
 * the lock key, read on the runner's own connections every OBSERVE_EVERY_MS, one round trip per
 * node per poll. An event is recorded only when the holders or the TTL's presence change.
 * Polls never overlap; a node that does not answer is skipped until it does.
 */
export class Observer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly last = new Map<number, string>();

  constructor(
    private readonly readers: readonly LockReader[],
    private readonly key: string,
    private readonly recorder: Recorder,
    private readonly names: OwnerNames,
  ) {}

  /** First poll now, then every OBSERVE_EVERY_MS. */
  start(): void {
    this.tick();
  }

  /** One more poll (so the end state is recorded), then no more. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.poll();
  }

  private tick(): void {
    if (this.stopped) return;
    this.running = this.poll().finally(() => {
      if (!this.stopped) this.timer = setTimeout(() => this.tick(), OBSERVE_EVERY_MS);
    });
  }

  private async poll(): Promise<void> {
    await Promise.all(
      this.readers.map(async (reader, i) => {
        const peek = await reader.peek(this.key).catch(() => undefined);
        if (!peek || reader.node === undefined) return;
        const holders = peek.holders.map((h) => this.names(h.owner));
        const ttlClass = peek.ttlMs === -2 ? 'gone' : peek.ttlMs === -1 ? 'no-ttl' : 'ttl';
        const state = `${reader.node}|${holders.join(',')}|${ttlClass}`;
        if (this.last.get(i) === state) return;
        this.last.set(i, state);
        this.recorder.push<ServerEvent>({ kind: 'server', node: reader.node, holders, ttlMs: peek.ttlMs });
      }),
    );
  }
}

/**
 * Whether the server says `owner` holds the lock right now (majority of nodes for Redlock), read
 * on the runner's connections. A node whose read fails is asked once more at once (its reader has
 * reconnected: a restarted node); when no node answers at all (a failover under way) the read is
 * tried again a few times. Undefined when none ever does.
 */
export async function serverSaysHeld(readers: readonly LockReader[], key: string, owner: string): Promise<boolean | undefined> {
  const seen: (readonly Holder[] | undefined)[] = readers.map(() => undefined);
  const read = (): Promise<unknown> =>
    Promise.all(readers.map(async (r, i) => (seen[i] ??= await r.peek(key).then((p) => p.holders, () => undefined))));
  await read();
  if (seen.includes(undefined)) await read();
  for (let attempt = 0; attempt < HELD_RETRIES && seen.every((h) => h === undefined); attempt++) {
    await sleep(OBSERVE_EVERY_MS);
    await read();
  }
  const answered = seen.filter((h): h is readonly Holder[] => h !== undefined);
  if (answered.length === 0) return undefined;
  return answered.filter((h) => holdsIn(h, owner)).length > readers.length / 2;
}

const HELD_RETRIES = 3;
