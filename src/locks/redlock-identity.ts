import { lookup } from 'node:dns/promises';
import { UsageError } from '../core/errors.js';
import type { Connection } from '../redis/connection.js';
import { serverRunId } from '../redis/server-identity.js';
import { formatHostPort } from '../redis/target.js';

// A majority means a majority of independent servers: one server named twice would cast two
// votes, and two servers could outvote three. What names a server is not how its address is
// spelled (the same URL, `localhost:P` next to `127.0.0.1:P`, `[::1]:P` next to `127.0.0.1:P`,
// another /db of it, a forwarded port): it is the server itself, its INFO run_id.

/** Every name one node goes by: its server's run_id once it answered, and the addresses its host resolves to. */
async function identitiesOf(node: Connection): Promise<{ key: string; says: string }[]> {
  const runId = await serverRunId(node);
  const addresses = await lookup(node.spec.host, { all: true }).then(
    (found) => found.map((a) => a.address),
    () => [node.spec.host],
  );
  return [
    ...(runId ? [{ key: `run_id ${runId}`, says: `one redis-server, run_id ${runId.slice(0, 12)}` }] : []),
    // Before the server answers (or when INFO is not allowed), its address is all there is to go by.
    ...addresses.map((address) => {
      const at = formatHostPort({ host: address, port: node.spec.port });
      return { key: `address ${at}`, says: `both ${at}` };
    }),
  ];
}

/**
 * Refuses (exit 2, before any lock command is sent) a --nodes list that names one server twice,
 * naming both entries; `nodes` are the opened connections, offline stand-ins included.
 */
export async function refuseSameServerTwice(nodes: readonly Connection[]): Promise<void> {
  const identities = await Promise.all(nodes.map(identitiesOf));
  const seen = new Map<string, string>();
  identities.forEach((names, i) => {
    const label = nodes[i]!.label;
    for (const { key, says } of names) {
      const other = seen.get(key);
      if (other !== undefined) {
        throw new UsageError(`--nodes names one server twice (${other} and ${label} are ${says}): Redlock needs independent primaries`);
      }
    }
    for (const { key } of names) seen.set(key, label);
  });
}
