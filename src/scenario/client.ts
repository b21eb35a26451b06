import { randomBytes, randomUUID } from 'node:crypto';
import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { formatOwner } from '../core/owner.js';
import type { ClientOp } from '../core/scenario/history.js';
import { protocolFor } from '../locks/registry.js';
import type { LockEnv, LockKind, LockProtocol, LockRequest } from '../locks/types.js';
import type { Watchdog } from '../locks/watchdog.js';
import type { RunClock } from './clock.js';
import { CrashedError, Gate } from './gate.js';
import { closeLink, openLinks, type Link } from './client-links.js';
import type { ClientStep, ScenarioClient } from './model.js';
import { serverSaysHeld } from './observer.js';
import type { LockReader } from './reader.js';
import type { OpRecord, Recorder } from './recorder.js';
import type { DemoResource } from '../core/demo-resource.js';
import type { ClientTargets } from './targets.js';
import type { CommandReport, TimerReport } from './timing-probe.js';

/** What every client of a run shares. */
export interface ClientContext {
  readonly clock: RunClock;
  readonly recorder: Recorder;
  readonly resource: DemoResource;
  /** The runner's own connections, for `held` (what the server says at the moment of an op). */
  readonly readers: readonly LockReader[];
  readonly key: string;
  /** The scenario's lock kind after the variant's override. */
  readonly kind: LockKind;
  /** Put a proxy between this client and each node (the scenario has client partitions). */
  readonly clientProxies: boolean;
  readonly names: (owner: string) => string;
  /** Each client timer's planned and actual delay (the run's timing probe). */
  readonly onTimer?: TimerReport;
  /** Each command's round trip (the run's timing probe). */
  readonly onCommand?: CommandReport;
}

/** The lock a client believes it holds, with what it needs to release, renew and watch it. */
export interface HeldLock {
  readonly kind: LockKind;
  readonly protocol: LockProtocol;
  readonly env: LockEnv;
  readonly req: LockRequest;
  /** The lease in scenario ms. */
  readonly leaseMs: number;
  watchdog?: Watchdog;
}

/**
 * One scenario client: its own connections and identity (a Redisson UUID and thread id, and a
 * random token for token locks), its steps run strictly in order, and the faults that hit it
 * (pause, crash, partition) applied the moment they are due.
 */
export class ClientRuntime {
  readonly abort = new AbortController();
  readonly uuid = randomUUID();
  readonly thread: string;
  readonly token = randomBytes(10).toString('hex');
  lock: HeldLock | undefined;
  /** The fencing token of the client's latest acquisition (fenced locks). */
  fence: number | undefined;
  /** The client's watchdog or a renewal reported the lock lost. */
  lost = false;
  /** Its current acquisition stops its work when lost (the client's stop-on-lost, or the acquire step's). */
  stopsOnLost = false;
  /** Inside the critical section (entered and not left). */
  inside = false;
  /** Its latest acquire failed: its section steps are skipped until an acquire succeeds. */
  refused = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly pending = new Set<Promise<unknown>>();
  private finished = false;

  private constructor(
    readonly def: ScenarioClient,
    readonly ctx: ClientContext,
    private readonly links: readonly Link[],
    readonly gate: Gate,
    index: number,
    private readonly onFatal: (err: unknown) => void,
    private readonly act: (c: ClientRuntime, step: ClientStep) => Promise<void>,
  ) {
    this.thread = String(index + 1);
    this.stopsOnLost = def.stopOnLost;
  }

  get name(): string {
    return this.def.name;
  }

  /** Connects the client (through its own proxies when the scenario partitions clients). */
  static async open(
    def: ScenarioClient,
    index: number,
    ctx: ClientContext,
    targets: ClientTargets,
    onFatal: (err: unknown) => void,
    act: (c: ClientRuntime, step: ClientStep) => Promise<void>,
  ): Promise<ClientRuntime> {
    const gate = new Gate(def.name, ctx.onTimer);
    const links = await openLinks(def, targets, gate, { clientProxies: ctx.clientProxies, onCommand: ctx.onCommand });
    return new ClientRuntime(def, ctx, links, gate, index, onFatal, act);
  }

  /** The lock env for a kind: every node for Redlock, the (first reachable) single target otherwise. */
  envFor(kind: LockKind): LockEnv {
    const reachable = this.links.find((l) => !l.raw.offline) ?? this.links[0]!;
    const nodes = kind === 'redlock' ? this.links.map((l) => l.gated) : [];
    return { conn: reachable.gated, nodes, pubsub: 'plain', now: Date.now };
  }

  /** This client's owner in a kind's format: `<uuid>:<thread>` for Redisson kinds, its token otherwise. */
  ownerFor(kind: LockKind): string {
    return protocolFor(kind).ownerFormat === 'redisson' ? formatOwner({ client: this.uuid, thread: this.thread }) : this.token;
  }

  /** The kind a step uses: its own, the client's, or the scenario's (after the variant's override). */
  kindOf(step: { readonly kind?: LockKind }): LockKind {
    return step.kind ?? this.def.kind ?? this.ctx.kind;
  }

  /** What the server says right now: does this client hold the lock? (the runner's read, not the client's) */
  held(): Promise<boolean | undefined> {
    const kind = this.lock?.kind ?? this.kindOf({});
    return serverSaysHeld(this.ctx.readers, this.ctx.key, this.ownerFor(kind));
  }

  /** Scenario ms on the wall clock. */
  real(ms: number): number {
    return this.ctx.clock.real(ms);
  }

  note(text: string): void {
    this.ctx.recorder.note(this.name, text);
  }

  /**
   * The client learns that its lock is gone (a lock-lost event with `why`, if given, on its lane). One
   * that stops on loss stops its work now: it leaves the critical section, as code aborted by onLockLost would.
   */
  lockLost(why?: string): void {
    this.lost = true;
    if (why !== undefined) this.ctx.recorder.lockLost(this.name, why);
    if (!this.stopsOnLost || !this.inside) return;
    this.inside = false;
    this.ctx.recorder.op(this.name, 'leave', { detail: 'lock lost: stops its work' }).ok();
  }

  /**
   * Records an op and runs it: errors become a `fail` with the message; a crash mid-op records no
   * completion (a dead client finishes nothing); a UsageError means the scenario is broken.
   */
  async op(op: ClientOp, extra: Parameters<Recorder['op']>[2], body: (rec: OpRecord) => Promise<void>): Promise<void> {
    const rec = this.ctx.recorder.op(this.name, op, extra);
    try {
      await body(rec);
    } catch (err) {
      if (err instanceof CrashedError || this.gate.dead || this.finished) return;
      if (err instanceof UsageError) throw err;
      rec.fail({ detail: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Runs a step at its time. Pause, crash and the client's network happen to it whatever it is
   * doing; the rest waits its turn in the queue, and its completion is returned.
   */
  dispatch(step: ClientStep): Promise<void> | undefined {
    switch (step.do) {
      case 'pause':
        this.pause(step.forMs);
        return undefined;
      case 'crash':
        this.crash();
        return undefined;
      case 'partition':
        this.partition(step.nodes);
        return undefined;
      case 'heal':
        this.heal();
        return undefined;
      default:
        if (step.do === 'renew' && step.background) {
          this.runAside(step);
          return undefined;
        }
        return this.enqueue(step);
    }
  }

  /** Queues a step behind the client's earlier ones; it runs once the client is free and not paused. */
  enqueue(step: ClientStep): Promise<void> {
    this.chain = this.chain.then(() => this.runStep(step));
    return this.chain;
  }

  /** Paused or crashed: its queued steps wait by design. */
  get frozen(): boolean {
    return this.gate.paused || this.gate.dead;
  }

  /** Runs a step now, beside the queue (a refresh timer's renewal, not the worker's next step): it still waits out a pause. */
  runAside(step: ClientStep): void {
    this.track(this.runStep(step));
  }

  /** Resolves once every queued step has run. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Work started outside the queue (pauses) that the run must wait for. */
  track(work: Promise<unknown>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Queued steps and pauses still to complete. */
  async settled(): Promise<void> {
    await Promise.all([this.chain, ...this.pending]);
  }

  /** Freezes the client now for `forMs` (scenario ms). */
  pause(forMs: number): void {
    if (this.gate.dead) return this.note('skipped pause: crashed before');
    const rec = this.ctx.recorder.op(this.name, 'pause', { detail: `frozen for ${formatDuration(forMs)}` });
    this.track(
      this.gate.pause(this.real(forMs)).then(() => {
        if (!this.gate.dead && !this.finished) rec.ok();
      }),
    );
  }

  /** Dies now: aborts what it is doing, stops renewing, drops its connections abruptly, never releases. */
  crash(): void {
    if (this.gate.dead) return;
    const rec = this.ctx.recorder.op(this.name, 'crash', {});
    this.gate.kill();
    this.abort.abort();
    this.lock?.watchdog?.stop();
    for (const l of this.links) if (!l.raw.offline) l.raw.client.disconnect();
    rec.ok();
  }

  /** Cuts the client off from `nodes` (default: all) until heal(). */
  partition(nodes?: readonly string[]): void {
    const cut = this.links.filter((l) => l.proxy && (!nodes || nodes.includes(l.node)));
    for (const l of cut) l.proxy!.cut();
    this.note(`cut off from ${cut.map((l) => l.node).join(', ') || 'nothing'}`);
  }

  heal(): void {
    for (const l of this.links) l.proxy?.heal();
    this.note('network healed');
  }

  /** End of the run: no more steps or renewals; recorded state is final. */
  finish(): void {
    this.finished = true;
    this.lock?.watchdog?.stop();
    this.gate.open();
  }

  async close(): Promise<void> {
    this.finish();
    this.abort.abort();
    await Promise.all(this.links.map((l) => closeLink(l)));
  }

  private async runStep(step: ClientStep): Promise<void> {
    await this.gate.wait();
    if (this.finished) return;
    if (this.gate.dead) return this.note(`skipped ${step.do}: ${this.name} crashed`);
    try {
      await this.act(this, step);
    } catch (err) {
      if (err instanceof CrashedError || this.gate.dead || this.finished) return;
      this.onFatal(err);
    }
  }
}
