import { loopbackEndpoint } from '../core/endpoint.js';
import { UnreachableError } from '../core/errors.js';
import { connect, offlineConnection, type Connection } from '../redis/connection.js';
import { SCRIPTS } from '../redis/scripts.js';
import { startProxy, type FaultProxy } from '../sandbox/proxy.js';
import type { Gate } from './gate.js';
import { gatedConnection } from './gated-client.js';
import type { ScenarioClient } from './model.js';
import type { ClientTargets } from './targets.js';
import type { CommandReport } from './timing-probe.js';

// Scenario clients reconnect quickly (after a partition heals, a node restarts, Sentinel fails
// over): ioredis's default back-off would add up to seconds the scenario did not ask for.
const RECONNECT_EVERY_MS = 25;
const SCRIPT_NAMES: ReadonlySet<string> = new Set(Object.keys(SCRIPTS));

/** One client's way to one node: the raw connection, the gated one its steps use, and its proxy. */
export interface Link {
  readonly node: string;
  readonly raw: Connection;
  readonly gated: Connection;
  readonly proxy?: FaultProxy;
}

/**
 * Connects a client to each node it targets: through its own proxy when the scenario partitions
 * clients, an offline stand-in for a node outside its `reach`. On failure, closes what it opened.
 */
export async function openLinks(
  def: ScenarioClient,
  targets: ClientTargets,
  gate: Gate,
  opts: { readonly clientProxies: boolean; readonly onCommand?: CommandReport | undefined },
): Promise<Link[]> {
  const wanted =
    targets.kind === 'single'
      ? [{ node: targets.node?.name ?? 'primary', spec: targets.spec }]
      : targets.nodes.map((n) => ({ node: n.node.name, spec: n.spec }));
  const links: Link[] = [];
  const report = opts.onCommand;
  const onCommand = report && ((command: string) => report(def.name, command));
  try {
    for (const w of wanted) {
      if (targets.kind === 'nodes' && def.reach && !def.reach.includes(w.node)) {
        const raw = offlineConnection(w.spec, new UnreachableError(`${def.name} cannot reach ${w.node}`));
        links.push({ node: w.node, raw, gated: raw });
        continue;
      }
      let spec = w.spec;
      let proxy: FaultProxy | undefined;
      if (opts.clientProxies) {
        proxy = await startProxy({ port: w.spec.port });
        spec = loopbackEndpoint(proxy.port);
      }
      const raw = await connect(spec, { mode: 'long-lived', name: `redlock-cli:scenario:${def.name}` }).catch(
        async (err: unknown) => {
          await proxy?.close();
          throw err;
        },
      );
      const options = (raw.client as { options?: { retryStrategy?: unknown } }).options;
      if (options && 'retryStrategy' in options) options.retryStrategy = () => RECONNECT_EVERY_MS;
      links.push({
        node: w.node,
        raw,
        gated: gatedConnection(raw, gate, SCRIPT_NAMES, onCommand),
        ...(proxy ? { proxy } : {}),
      });
    }
  } catch (err) {
    await Promise.all(links.map((l) => closeLink(l)));
    throw err;
  }
  return links;
}

export async function closeLink(l: Link): Promise<void> {
  if (!l.raw.offline) l.raw.client.disconnect();
  await l.raw.close().catch(() => undefined);
  await l.proxy?.close();
}
