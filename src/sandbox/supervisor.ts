import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { NotFoundError } from '../core/errors.js';
import { killNode, spawnNode, waitForPing } from './node-process.js';
import { isAlive, leadsGroup, ownedBy, processesUnder } from './procfs.js';
import { confPath, logPath, nodeDir, readState, writeState } from './state.js';
import type { NodeRecord, NodeRole, ProxyHook, SandboxState } from './types.js';
import { sleep } from '../core/sleep.js';

// Servers started by an ephemeral sandbox (tests, scripts) are SIGKILLed when this process exits,
// so a failing test or a thrown error never leaves one behind; `up` opts out with `persist`.
const onExit = new Map<number, { conf: string; cwd: string }>();
const dirsOnExit = new Set<string>();
const PORT_RETRIES = 5;
let exitHooked = false;

function killOnExit(pid: number, conf: string, cwd: string, dir: string): void {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const [p, n] of onExit) if (ownedBy(p, n.conf, n.cwd)) process.kill(leadsGroup(p) ? -p : p, 'SIGKILL');
      for (const d of dirsOnExit) rmSync(d, { recursive: true, force: true });
    });
  }
  onExit.set(pid, { conf, cwd });
  dirsOnExit.add(dir);
}

export interface LaunchSpec {
  readonly name: string;
  readonly role: NodeRole;
  readonly port: number;
  /** Config file text; undefined keeps the file already there (a sentinel's own rewritten config). */
  readonly conf: string | undefined;
  readonly replicaOf?: string | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
}

export interface StopResult {
  /** Processes that were running and were SIGKILLed. */
  readonly stopped: number;
  /** Recorded processes that were already gone (killed by a verb, or exited). */
  readonly gone: number;
}

/** Owns a sandbox's state file and its processes: launches nodes, kills them by checked pid. */
export class Supervisor {
  constructor(
    public state: SandboxState,
    readonly ephemeral: boolean,
    readonly proxy?: ProxyHook,
  ) {}

  get dir(): string {
    return this.state.dir;
  }

  /** Re-reads the state file: another invocation (a `pause --for` in another terminal) may have changed it. */
  refresh(): SandboxState {
    this.state = readState(this.dir) ?? this.state;
    return this.state;
  }

  /** Applies a change to the newest state on disk (another invocation may have changed it) and saves it. */
  update(change: (state: SandboxState) => SandboxState): SandboxState {
    this.state = change(readState(this.dir) ?? this.state);
    writeState(this.state);
    return this.state;
  }

  /** The node's record; refuses any name that is not in the state file. */
  record(name: string): NodeRecord {
    const found = this.state.nodes.find((n) => n.name === name);
    if (!found) {
      const names = this.state.nodes.map((n) => n.name).join(', ');
      throw new NotFoundError(`sandbox "${this.state.name}" has no node "${name}" (its nodes: ${names})`);
    }
    return found;
  }

  /** The pid recorded for the node is still that node's server. */
  owns(node: NodeRecord): boolean {
    return ownedBy(node.pid, confPath(this.dir, node.name), nodeDir(this.dir, node.name));
  }

  /**
   * Starts a node in the foreground on its port, records its pid, waits for PING. A port still
   * held for a moment (a killed node's socket, a racing bind) is retried briefly, not given up.
   */
  async launch(spec: LaunchSpec, signal?: AbortSignal): Promise<NodeRecord> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.launchOnce(spec, signal);
      } catch (err) {
        if (attempt >= PORT_RETRIES || !/Address already in use/.test(String(err))) throw err;
        await sleep(100 * attempt);
      }
    }
  }

  private async launchOnce(spec: LaunchSpec, signal?: AbortSignal): Promise<NodeRecord> {
    const cwd = nodeDir(this.dir, spec.name);
    const conf = confPath(this.dir, spec.name);
    const log = logPath(this.dir, spec.name);
    mkdirSync(cwd, { recursive: true });
    if (spec.conf !== undefined) writeFileSync(conf, spec.conf);
    const spawned = spawnNode({
      bin: this.state.redisServer,
      conf,
      cwd,
      log,
      port: spec.port,
      args: spec.role === 'sentinel' ? ['--sentinel'] : [],
      ...(spec.env ? { env: spec.env } : {}),
    });
    if (this.ephemeral) killOnExit(spawned.pid, conf, cwd, this.dir);
    const previous = this.state.nodes.find((n) => n.name === spec.name);
    const record: NodeRecord = {
      name: spec.name,
      role: spec.role,
      port: spec.port,
      pid: spawned.pid,
      startedAt: new Date().toISOString(),
      state: 'running',
      ...(spec.replicaOf !== undefined ? { replicaOf: spec.replicaOf } : {}),
      ...(spec.env && Object.keys(spec.env).length > 0 ? { env: spec.env } : {}),
      ...(previous?.proxy ? { proxy: previous.proxy } : {}),
    };
    this.update((s) => ({
      ...s,
      nodes: previous ? s.nodes.map((n) => (n.name === spec.name ? record : n)) : [...s.nodes, record],
    }));
    await waitForPing(spec.port, spawned, log, 5000, signal);
    return record;
  }

  /** SIGKILLs the node's process if it is still ours; false when it was not running. */
  async killProcess(node: NodeRecord): Promise<boolean> {
    const killed = await killNode(node.pid, confPath(this.dir, node.name), nodeDir(this.dir, node.name));
    onExit.delete(node.pid);
    return killed;
  }

  /**
   * Kills every node and proxy it can prove is ours, then removes the sandbox directory. Besides the
   * recorded pids it sweeps for servers running in the directory that no state file names (an `up`
   * killed between spawning a node and recording it).
   */
  async stopAll(): Promise<StopResult> {
    let stopped = 0;
    for (const node of this.state.nodes) if (await this.killProcess(node)) stopped++;
    for (const pid of processesUnder(this.dir)) {
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 200 && isAlive(pid); i++) await sleep(5);
      stopped++;
    }
    for (const node of this.state.nodes) {
      if (!node.proxy) continue;
      const target = { sandbox: this.state.name, dir: this.dir, node: node.name, port: node.port };
      if (this.proxy?.stop) await this.proxy.stop(target, node.proxy).catch(() => undefined);
      else if (node.proxy.pid !== undefined && ownedBy(node.proxy.pid, this.dir)) {
        process.kill(node.proxy.pid, 'SIGKILL');
        for (let i = 0; i < 100 && isAlive(node.proxy.pid); i++) await sleep(5);
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
    dirsOnExit.delete(this.dir);
    return { stopped, gone: Math.max(0, this.state.nodes.length - stopped) };
  }
}
