import type { FixTarget } from '../../core/doctor-fix.js';
import type { Connection } from '../../redis/connection.js';
import { formatHostPort } from '../../redis/target.js';
import { endpointUrl } from '../../core/endpoint.js';
import { resolvedConnection } from '../connection-flags.js';
import type { ConnectionFlags } from '../options.js';

// Where doctor's printed fix commands connect: the node that holds the key, with the same
// database, TLS and user, and never the password (`--askpass` asks for it instead).

/** The address a Sentinel-resolved connection actually reached (the URL names the sentinels' master set, not it). */
function connectedAddress(conn: Connection): { host: string; port: number } {
  const stream = (conn.client as unknown as { stream?: { remoteAddress?: string; remotePort?: number } }).stream;
  return stream?.remoteAddress && stream.remotePort ? { host: stream.remoteAddress, port: stream.remotePort } : conn.spec;
}

/** The flags that point redlock-cli at the same target, minus credentials. */
function redlockFlags(conn: Connection, flags: ConnectionFlags): string[] {
  const resolved = resolvedConnection(flags);
  if (resolved.targetName !== undefined) return ['--target', resolved.targetName]; // its password comes from the env or a prompt again
  const ep = conn.spec;
  if (ep.clusterNodes) return ['--cluster', ep.clusterNodes.map(formatHostPort).join(',')];
  if (ep.sentinels) return ['--sentinel', ep.sentinels.map(formatHostPort).join(','), '--master-name', ep.masterName ?? ''];
  if (!resolved.named) return []; // REDIS_URL or the default: the same environment finds it again
  return ['--url', endpointUrl(ep, 'drop')];
}

/** Builds, per node label, the connection part of printed commands. */
export function fixTargetFor(conn: Connection, flags: ConnectionFlags) {
  const url = conn.spec;
  const redlockCli = redlockFlags(conn, flags);
  const fixed = conn.topology === 'cluster' ? undefined : connectedAddress(conn);
  const auth = [...(url.username ? ['--user', url.username] : []), ...(url.password ? ['--askpass'] : [])];
  return (node: string, binaryKeys: ReadonlyMap<string, Uint8Array>): FixTarget => {
    const at = fixed ?? { host: node.slice(0, node.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1'), port: Number(node.slice(node.lastIndexOf(':') + 1)) };
    const redisCli = [
      ...(conn.topology === 'cluster' ? ['-c'] : []),
      '-h', at.host, '-p', String(at.port),
      ...(url.db !== 0 ? ['-n', String(url.db)] : []),
      ...(url.tls ? ['--tls'] : []),
      ...auth,
    ];
    return { redisCli, redlockCli, binaryKeys };
  };
}
