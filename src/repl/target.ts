import type { HostTarget } from '../commands/context.js';
import { DEFAULT_URL, describeEndpoint as describeTarget, parseEndpointUrl, parseHostList, type Endpoint } from '../core/endpoint.js';
import type { Placed } from '../core/repl/state.js';
import type { SandboxHandle } from '../sandbox/index.js';

/** Where the REPL's commands go unless they say otherwise: a URL, or an attached sandbox. */
export interface ReplTarget {
  /** What the prompt shows: `127.0.0.1:6379` or `sandbox:single`. */
  readonly label: string;
  /** The panel's connection, and every command's that names none of its own. */
  readonly spec: Endpoint;
  /** A Redlock sandbox: lock commands without --kind lock on all these nodes. */
  readonly redlockNodes?: readonly Endpoint[] | undefined;
  /** The attached sandbox's name. */
  readonly sandbox?: string | undefined;
}

/** The names the owner memory gives locks taken on this target. */
export function ownerMemoryNames(target: ReplTarget): string[] {
  const names = [describeTarget(target.spec)];
  if (target.redlockNodes) names.push(`redlock ${target.redlockNodes.map(describeTarget).join(',')}`);
  return names;
}

/** The target with the owner memory's names for it, as the session's state keeps it. */
export const placed = (target: ReplTarget): Placed<ReplTarget> => ({ target, names: ownerMemoryNames(target) });

/** A plain URL target (`connect <url>`); a bare host:port gets redis:// in front. */
export function urlTarget(text: string): ReplTarget {
  // Also the redis-sentinel:// URL `sandbox up` prints for a Sentinel sandbox.
  const spec = parseEndpointUrl(text, { bare: true });
  return { label: describeTarget(spec), spec };
}

/** The target of an attached sandbox: its primary, its sentinels, its cluster seeds or its Redlock nodes. */
export function sandboxTarget(handle: SandboxHandle): ReplTarget {
  const label = `sandbox:${handle.name === 'default' ? handle.topology : handle.name}`;
  const { urls } = handle;
  const base = { label, sandbox: handle.name };
  const placeholder = parseEndpointUrl(DEFAULT_URL);
  if (urls.sentinel) {
    const spec = { ...placeholder, sentinels: parseHostList(urls.sentinel.hosts.join(','), '--sentinel'), masterName: urls.sentinel.masterName };
    return { ...base, spec };
  }
  if (urls.cluster) return { ...base, spec: { ...placeholder, clusterNodes: parseHostList(urls.cluster.seeds.join(','), '--cluster') } };
  const nodeUrls = Object.values(urls.nodes).map((u) => parseEndpointUrl(u));
  const primary = urls.primary !== undefined ? parseEndpointUrl(urls.primary) : (nodeUrls[0] ?? placeholder);
  // A Redlock sandbox has no primary: the panel reads the first node, lock commands use them all.
  const redlockNodes = handle.topology === 'redlock' ? nodeUrls : undefined;
  return { ...base, spec: primary, redlockNodes };
}

/** The REPL's first target: what its own connection options resolved to (`repl --url ...`, `--target`, the current target), else REDIS_URL or the default. */
export function flagsTarget(connection: { readonly endpoint: Endpoint; readonly targetName?: string | undefined }): ReplTarget {
  const spec = connection.endpoint;
  // A saved target (--target or `target use`) is named in the prompt: `A@target:prod>`.
  return { label: connection.targetName !== undefined ? `target:${connection.targetName}` : describeTarget(spec), spec };
}

/** The host target commands get through their RunContext: the endpoint itself, never words on their line. */
export const hostTarget = (target: ReplTarget): HostTarget => ({ endpoint: target.spec, redlockNodes: target.redlockNodes, sandbox: target.sandbox });
