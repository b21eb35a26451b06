// Race clients in this process: each with its own lock session (connections, owner), all on one
// event loop. The parent runs one when --procs is 0; every worker process runs one for its share.

import { sampleHold } from '../core/race/hold.js';
import type { HoldDist } from '../core/race/plan.js';
import { RaceClient, type ResourcePort } from './client.js';
import type { Recorder } from './recorder.js';
import type { SessionFactory } from './session.js';
import { sleep } from '../core/sleep.js';

export interface ClientSpec {
  readonly name: string;
  readonly key: string;
}

export interface LoopConfig {
  readonly holdMs: number;
  readonly holdDist: HoldDist;
  /** Test hook: the first hold of the race blocks this whole process for this long (a starved harness). */
  readonly stallFirstHoldMs?: number | undefined;
  readonly waitMs: number;
}

const START_SPREAD_MS = 1;
// Connecting a thousand clients at once would overflow the server's accept backlog (511).
const CONNECT_BATCH = 100;

export class LocalPool {
  private readonly clients = new Map<string, RaceClient>();
  private readonly runs: Promise<void>[] = [];
  private started = false;
  private stopped = false;

  constructor(
    private readonly factory: SessionFactory,
    private readonly config: LoopConfig,
    private readonly resource: ResourcePort,
    private readonly rec: Recorder,
  ) {}

  private stalled = false;

  private stallOnce(): void {
    if (this.stalled || this.config.stallFirstHoldMs === undefined) return;
    this.stalled = true;
    const until = performance.now() + this.config.stallFirstHoldMs;
    while (performance.now() < until) {
      // spin: every timer of this process, renewals included, waits
    }
  }

  /** Opens every client's session; a failure closes the ones already open and rethrows. */
  async connect(specs: readonly ClientSpec[]): Promise<void> {
    try {
      for (let i = 0; i < specs.length; i += CONNECT_BATCH) {
        await Promise.all(specs.slice(i, i + CONNECT_BATCH).map((spec) => this.open(spec)));
      }
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  private async open(spec: ClientSpec): Promise<RaceClient> {
    let client: RaceClient | undefined;
    const session = await this.factory(spec, { onLost: (reason) => client?.lost(reason) });
    client = new RaceClient({
      ...spec,
      session,
      resource: this.resource,
      rec: this.rec,
      hold: () => {
        this.stallOnce();
        return sampleHold(this.config.holdDist, this.config.holdMs);
      },
      waitMs: this.config.waitMs,
    });
    this.clients.set(spec.name, client);
    if (this.stopped) client.stop();
    if (this.started) this.runs.push(client.run());
    return client;
  }

  /**
   * Clients start their loops spread over START_SPREAD_MS per client (at most one wait): a
   * thousand first attempts in one event-loop turn would stall the harness itself, and its
   * holders' renewals with it, before the race has begun.
   */
  go(): void {
    this.started = true;
    const spread = this.clients.size > 1 ? Math.min(this.config.waitMs, this.clients.size * START_SPREAD_MS) : 0;
    for (const client of this.clients.values()) {
      this.runs.push(sleep(Math.random() * spread).then(() => client.run()));
    }
  }

  /** Clients between an acquire ok and their release, right now. */
  holders(): string[] {
    return [...this.clients.values()].filter((c) => c.holding).map((c) => c.name);
  }

  /** Freezes one client for `ms` (a simulated process pause); settles when it runs again. */
  pause(name: string, ms: number): Promise<void> {
    return this.clients.get(name)?.pause(ms) ?? Promise.resolve();
  }

  /** Kills one client (its sockets drop) and starts a fresh one in its place under `replacement`. */
  async crash(name: string, replacement: ClientSpec): Promise<void> {
    const client = this.clients.get(name);
    if (!client) return;
    client.crash();
    this.clients.delete(name);
    await this.open(replacement);
  }

  /** Stops waiting at once, lets clients inside finish their cycle, then closes every session. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const client of this.clients.values()) client.stop();
    await Promise.all(this.runs);
    await this.close();
  }

  private async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}
