import type { Connection } from './connection.js';

/**
 * The run_id of the redis-server behind a single-server connection (`INFO server`): one per
 * server process, whatever address, address family or database named it. Undefined when the
 * server does not say (INFO refused by an ACL, no answer in time) or the connection is a Cluster.
 */
export async function serverRunId(conn: Connection): Promise<string | undefined> {
  if (conn.offline || conn.topology !== 'standalone') return undefined;
  try {
    const info = (await conn.client.info('server')) as unknown;
    return typeof info === 'string' ? /^run_id:([0-9a-f]+)\s*$/m.exec(info)?.[1] : undefined;
  } catch {
    return undefined;
  }
}
