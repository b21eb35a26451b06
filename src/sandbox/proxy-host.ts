import { startProxy, type FaultProxy, type ProxyMode } from './proxy.js';

/** What the control channel of a sandbox's proxies understands (one JSON object per line). */
export type ProxyRequest =
  | { readonly op: 'add'; readonly node: string; readonly targetPort: number; readonly listenPort?: number }
  | { readonly op: 'set'; readonly node: string; readonly mode: ProxyMode }
  | { readonly op: 'remove'; readonly node: string }
  | { readonly op: 'status' };

export interface ProxyNodeStatus {
  readonly node: string;
  /** Where clients connect. */
  readonly port: number;
  /** The node's own port. */
  readonly targetPort: number;
  readonly mode: ProxyMode;
  readonly connections: number;
}

export type ProxyResponse = { readonly ok: true; readonly proxies: readonly ProxyNodeStatus[] } | { readonly ok: false; readonly error: string };

/** The fault proxies of one sandbox, one per node, driven by ProxyRequests. */
export class ProxyHost {
  private readonly proxies = new Map<string, FaultProxy>();

  get size(): number {
    return this.proxies.size;
  }

  async handle(req: ProxyRequest): Promise<ProxyResponse> {
    try {
      if (req.op === 'add') await this.add(req.node, req.targetPort, req.listenPort);
      else if (req.op === 'set') setMode(this.get(req.node), req.mode);
      else if (req.op === 'remove') {
        await this.get(req.node).close();
        this.proxies.delete(req.node);
      }
      const nodes = req.op === 'status' ? [...this.proxies.keys()] : req.op === 'remove' ? [] : [req.node];
      return { ok: true, proxies: nodes.map((n) => this.status(n)) };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((p) => p.close()));
    this.proxies.clear();
  }

  private async add(node: string, targetPort: number, listenPort?: number): Promise<void> {
    // Idempotent per node: a retried `up` step must not leave a second listener behind.
    if (this.proxies.has(node)) return;
    this.proxies.set(node, await startProxy({ port: targetPort }, listenPort !== undefined ? { port: listenPort } : {}));
  }

  private get(node: string): FaultProxy {
    const proxy = this.proxies.get(node);
    if (!proxy) throw new Error(`no proxy in front of ${node}`);
    return proxy;
  }

  private status(node: string): ProxyNodeStatus {
    const p = this.get(node);
    return { node, port: p.port, targetPort: p.target.port, mode: p.mode, connections: p.connections };
  }
}

function setMode(proxy: FaultProxy, mode: ProxyMode): void {
  switch (mode.kind) {
    case 'pass':
      return proxy.heal();
    case 'latency':
      return proxy.latency(mode.ms);
    case 'hold':
      return proxy.hold();
    case 'cut':
      return proxy.cut();
  }
}
