import type { Redis } from 'ioredis';
import { UnreachableError } from '../core/errors.js';
import { formatHostPort, type HostPort } from './target.js';

// ioredis says "All sentinels are unreachable" both when no sentinel answered and when every one
// answered that it monitors no master of that name: a typo in --master-name read as a network
// fault. Asked directly (SENTINEL MASTERS, read-only), the sentinels tell the two apart.

/** Opens a lazy, non-retrying client to one sentinel (connection.ts builds it, with the target's TLS). */
export type SentinelOpener = (sentinel: HostPort) => Redis;

/** Names the masters `host:port` monitors, or undefined if it did not answer. */
async function mastersAt(sentinel: HostPort, open: SentinelOpener): Promise<string[] | undefined> {
  const client = open(sentinel);
  client.on('error', () => undefined); // the answer (or its absence) is all we want
  try {
    await client.connect();
    const reply = (await client.call('SENTINEL', 'MASTERS')) as unknown;
    if (!Array.isArray(reply)) return undefined;
    // Each master is a flat [field, value, ...] list; its "name" field is what --master-name names.
    return reply.flatMap((fields: unknown) => {
      if (!Array.isArray(fields)) return [];
      const at = fields.indexOf('name');
      return at >= 0 && typeof fields[at + 1] === 'string' ? [fields[at + 1] as string] : [];
    });
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/**
 * When connecting through `sentinels` failed: the error for a master name none of them knows
 * (with the names they do know), or undefined when some sentinel knows it or none answered.
 */
export async function unknownMasterError(sentinels: readonly HostPort[], masterName: string, open: SentinelOpener): Promise<UnreachableError | undefined> {
  const answers = (await Promise.all(sentinels.map((s) => mastersAt(s, open)))).filter((a) => a !== undefined);
  if (answers.length === 0 || answers.some((names) => names.includes(masterName))) return undefined;
  const known = [...new Set(answers.flat())].sort();
  const where = sentinels.map(formatHostPort).join(',');
  return new UnreachableError(
    `sentinels at ${where} know no master named '${masterName}'; they know: ${known.length > 0 ? known.join(', ') : 'none'} (set --master-name or the URL's #name to one of them)`,
  );
}
