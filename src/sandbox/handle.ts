import { NotFoundError } from '../core/errors.js';
import { parseClockChange, type ClockChange } from './clock.js';
import { clockVerb, resetClockVerb, type ClockActionResult } from './clock-verb.js';
import { failoverVerb, type FailoverOptions, type FailoverResult } from './failover.js';
import { killNodeVerb, pauseNodeVerb, restartNodeVerb, resumeNodeVerb, type ActionResult, type RestartOptions } from './faults.js';
import { livePrimary } from './primary.js';
import { healVerb, setProxyMode, type ProxyActionResult } from './proxy-verbs.js';
import { stallReplicationVerb, type StallActionResult } from './stall-verb.js';
import { sandboxStatus, type SandboxStatus } from './status.js';
import type { StopResult, Supervisor } from './supervisor.js';
import type { NodeRecord, SandboxState, TopologyName } from './types.js';
import { sandboxUrls, type SandboxUrls } from './urls.js';

export interface PauseResult extends ActionResult {
  /** With `forMs`: settles once the node has been resumed (stop() resumes nothing, it kills). */
  readonly resumed?: Promise<ActionResult>;
}

/** A running sandbox: its nodes and URLs, the fault verbs, and stop(). Every verb refuses nodes not in its state file. */
export interface SandboxHandle {
  readonly name: string;
  readonly topology: TopologyName;
  /** The sandbox directory: state file, and one directory per node with its config and log. */
  readonly dir: string;
  readonly state: SandboxState;
  /** Every node with its port, pid, role at start and state (running / paused / killed). */
  readonly nodes: readonly NodeRecord[];
  readonly urls: SandboxUrls;
  /** A node by name (n1, s1, ...); `primary` means whichever node is primary now. */
  node(name: string): Promise<NodeRecord>;
  kill(node: string): Promise<ActionResult>;
  restart(node: string, opts?: RestartOptions): Promise<ActionResult>;
  pause(node: string, opts?: { forMs?: number }): Promise<PauseResult>;
  resume(node: string): Promise<ActionResult>;
  /** Lets Sentinel promote a replica (by hand without Sentinel); resolves once the switch is visible. */
  failover(opts?: FailoverOptions): Promise<FailoverResult>;
  status(): Promise<SandboxStatus>;
  /** Through the fault proxy (`up --proxy`): `ms` more per round trip for the node's clients. */
  latency(node: string, ms: number): Promise<ProxyActionResult>;
  /** Through the fault proxy: resets the node's client connections and refuses new ones (`hold`: keeps them open, silent). */
  partition(node: string, opts?: { hold?: boolean }): Promise<ProxyActionResult>;
  /** Ends latency / partition on the node's proxy, and a replication stall on a replica. */
  heal(node: string): Promise<ProxyActionResult>;
  /** `+10s` jumps the node's wall clock, `x2` runs it fast: via libfaketime, else by rewriting its TTLs. */
  clock(node: string, change: string | ClockChange): Promise<ClockActionResult>;
  /** Puts a node's libfaketime clock back on real time; false when it had none to reset. */
  resetClock(node: string): Promise<boolean>;
  /** Writes the primary acknowledges miss this replica for `forMs` (default 5 s), so a failover loses them. */
  stallReplication(replica: string, opts?: { forMs?: number }): Promise<StallActionResult>;
  /** Kills every process of the sandbox (after checking each pid) and removes its directory. */
  stop(): Promise<StopResult>;
}

export class Sandbox implements SandboxHandle {
  /** Scheduled resumes of `pause --for`, by node. */
  private readonly pending = new Map<string, { timer: NodeJS.Timeout; fire: () => void; resumed: Promise<ActionResult> }>();

  constructor(private readonly sup: Supervisor) {}

  get state(): SandboxState {
    return this.sup.state;
  }
  get name(): string {
    return this.sup.state.name;
  }
  get topology(): TopologyName {
    return this.sup.state.topology;
  }
  get dir(): string {
    return this.sup.dir;
  }
  get nodes(): readonly NodeRecord[] {
    return this.sup.state.nodes;
  }
  get urls(): SandboxUrls {
    return sandboxUrls(this.sup.state);
  }

  async node(name: string): Promise<NodeRecord> {
    this.sup.refresh();
    if (name !== 'primary' || this.sup.state.nodes.some((n) => n.name === 'primary')) return this.sup.record(name);
    const primary = await livePrimary(this.sup);
    if (!primary) throw new NotFoundError(`no node of sandbox "${this.name}" answers as primary right now`);
    return primary;
  }

  async kill(node: string): Promise<ActionResult> {
    return killNodeVerb(this.sup, (await this.node(node)).name);
  }

  async restart(node: string, opts: RestartOptions = {}): Promise<ActionResult> {
    return restartNodeVerb(this.sup, (await this.node(node)).name, opts);
  }

  async pause(node: string, opts: { forMs?: number } = {}): Promise<PauseResult> {
    const { name } = await this.node(node);
    const paused = pauseNodeVerb(this.sup, name, opts.forMs);
    if (opts.forMs === undefined) return paused;
    let fire = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const resumed = new Promise<ActionResult>((resolve, reject) => {
      fire = () => {
        clearTimeout(timer);
        this.pending.delete(name);
        // The node may have been killed meanwhile: then resuming is refused, and that is the answer.
        try {
          this.sup.refresh();
          resolve(resumeNodeVerb(this.sup, name));
        } catch (err) {
          reject(err);
        }
      };
    });
    timer = setTimeout(fire, opts.forMs);
    this.pending.set(name, { timer, fire, resumed });
    resumed.catch(() => undefined);
    return { ...paused, resumed };
  }

  /** SIGCONT now; a pending `pause --for` of the node settles early with this same resume. */
  async resume(node: string): Promise<ActionResult> {
    const { name } = await this.node(node);
    const pending = this.pending.get(name);
    if (!pending) return resumeNodeVerb(this.sup, name);
    pending.fire();
    return pending.resumed;
  }

  async failover(opts: FailoverOptions = {}): Promise<FailoverResult> {
    this.sup.refresh();
    return failoverVerb(this.sup, opts);
  }

  async status(): Promise<SandboxStatus> {
    this.sup.refresh();
    return sandboxStatus(this.sup);
  }

  async latency(node: string, ms: number): Promise<ProxyActionResult> {
    return setProxyMode(this.sup, (await this.node(node)).name, 'latency', ms === 0 ? { kind: 'pass' } : { kind: 'latency', ms });
  }

  async partition(node: string, opts: { hold?: boolean } = {}): Promise<ProxyActionResult> {
    return setProxyMode(this.sup, (await this.node(node)).name, 'partition', { kind: opts.hold ? 'hold' : 'cut' });
  }

  async heal(node: string): Promise<ProxyActionResult> {
    return healVerb(this.sup, (await this.node(node)).name);
  }

  async clock(node: string, change: string | ClockChange): Promise<ClockActionResult> {
    return clockVerb(this.sup, (await this.node(node)).name, typeof change === 'string' ? parseClockChange(change) : change);
  }

  async resetClock(node: string): Promise<boolean> {
    return resetClockVerb(this.sup, (await this.node(node)).name);
  }

  async stallReplication(replica: string, opts: { forMs?: number } = {}): Promise<StallActionResult> {
    return stallReplicationVerb(this.sup, (await this.node(replica)).name, opts.forMs);
  }

  async stop(): Promise<StopResult> {
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    this.sup.refresh();
    return this.sup.stopAll();
  }
}
