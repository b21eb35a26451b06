import { MASTER_NAME, sentinelConf, sentinelId, type SentinelPeer } from './config.js';
import { call, pairs } from './resp.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';
import { until } from './wait.js';

/** What one sentinel believes: the master's port and how many replicas and peers it sees healthy. */
export interface SentinelView {
  readonly masterPort: number | undefined;
  readonly masterHealthy: boolean;
  readonly healthyReplicas: number;
  readonly healthyPeers: number;
}

const FORMING_PING_MS = 50;
const DEFAULT_PING_MS = 1000;

const flagsOk = (flags: string | undefined, expected: string): boolean => flags === expected;

export async function sentinelView(port: number, timeoutMs = 500): Promise<SentinelView> {
  const [addr, master, replicas, peers] = await Promise.all([
    call(port, ['SENTINEL', 'get-master-addr-by-name', MASTER_NAME], timeoutMs),
    call(port, ['SENTINEL', 'master', MASTER_NAME], timeoutMs),
    call(port, ['SENTINEL', 'replicas', MASTER_NAME], timeoutMs),
    call(port, ['SENTINEL', 'sentinels', MASTER_NAME], timeoutMs),
  ]);
  const list = (reply: typeof replicas): Record<string, string>[] => (Array.isArray(reply) ? reply.map(pairs) : []);
  return {
    masterPort: Array.isArray(addr) ? Number(addr[1]) : undefined,
    masterHealthy: flagsOk(pairs(master).flags, 'master'),
    healthyReplicas: list(replicas).filter((r) => flagsOk(r.flags, 'slave') && r['master-link-status'] === 'ok').length,
    healthyPeers: list(peers).filter((s) => flagsOk(s.flags, 'sentinel')).length,
  };
}

/** Every sentinel names `masterPort` as master and sees it, `replicas` replicas and its peers healthy. */
export async function waitSentinelsAgree(
  ports: readonly number[],
  masterPort: number,
  replicas: number,
  opts: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
): Promise<void> {
  await until(
    `${ports.length} sentinels to agree on the master at 127.0.0.1:${masterPort}`,
    async () => {
      const views = await Promise.all(ports.map((p) => sentinelView(p)));
      return views.every(
        (v) => v.masterPort === masterPort && v.masterHealthy && v.healthyReplicas === replicas && v.healthyPeers === ports.length - 1,
      );
    },
    { signal: opts.signal, timeoutMs: opts.timeoutMs ?? 10_000 },
  );
}

/** Starts the sentinels, each told about the replicas and the other sentinels up front. */
export async function startSentinels(
  sup: Supervisor,
  names: readonly string[],
  ports: readonly number[],
  primary: NodeRecord,
  replicas: readonly NodeRecord[],
  signal?: AbortSignal,
): Promise<void> {
  const peers: SentinelPeer[] = ports.map((port) => ({ port, id: sentinelId() }));
  await Promise.all(
    names.map((name, i) =>
      sup.launch(
        {
          name,
          role: 'sentinel',
          port: peers[i]!.port,
          conf: sentinelConf(sup.dir, name, peers[i]!, primary.port, replicas.map((r) => r.port), peers.filter((_, j) => j !== i)),
        },
        signal,
      ),
    ),
  );
  // A sentinel that started before its peers listened retries their link only once per ping
  // period (1 s): shorten it while forming, then put the default back.
  await Promise.all(ports.map((p) => call(p, ['SENTINEL', 'DEBUG', 'ping-period', FORMING_PING_MS])));
  await waitSentinelsAgree(ports, primary.port, replicas.length, { signal });
  await Promise.all(ports.map((p) => call(p, ['SENTINEL', 'DEBUG', 'ping-period', DEFAULT_PING_MS])));
}
