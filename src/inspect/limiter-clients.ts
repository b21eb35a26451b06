import { braced } from '../core/names.js';
import type { RawSnapshot } from '../core/decode/index.js';
import { isRateLimiterBody } from '../core/decode/rate-limiter.js';
import type { Connection } from '../redis/connection.js';
import type { InspectKey } from './keys.js';
import { scanBatches } from './scan.js';

// A PER_CLIENT RRateLimiter keeps one `{name}:value:<client id>` / `{name}:permits:<client id>`
// pair per Redisson client that used it (docs/lock-formats.md), and nothing lists the clients:
// only SCAN finds them. Their ids then go to the snapshot script, which reads every pair with
// the config in one atomic run. Read-only: SCAN with MATCH (a glob of the limiter's own prefix).

/** The client ids whose states to read, per key (empty for a key that is no such limiter). */
export type LimiterClients = readonly string[];

/** At most this many client states per limiter are read; a name used by more lists the first found. */
export const MAX_LIMITER_CLIENTS = 1000;

const CLIENT_ID = /^[0-9a-fA-F-]{36}$/;

/** A PER_CLIENT limiter's config hash, read where its states could be (same slot). */
export function needsLimiterClients(raw: RawSnapshot): boolean {
  if (raw.type !== 'hash' || !raw.companionsRead || !isRateLimiterBody(raw.body)) return false;
  for (let i = 0; i + 1 < raw.body.length; i += 2) if (raw.body[i] === 'type') return raw.body[i + 1] === '1';
  return false;
}

/** SCAN MATCH treats these as patterns: a name's own are escaped. */
const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The client ids with a state of each limiter, sorted; a name that is not UTF-8 is not searched. */
export async function limiterClients(conn: Connection, keys: readonly InspectKey[]): Promise<LimiterClients[]> {
  return Promise.all(
    keys.map(async (key) => {
      if (typeof key !== 'string') return [];
      const prefix = `${braced(key)}:`;
      const ids = new Set<string>();
      for await (const batch of scanBatches(conn, { pattern: `${globEscape(prefix)}*` })) {
        for (const name of batch.keys) {
          const rest = name.toString('utf8').slice(prefix.length);
          const id = /^(?:value|permits):(.*)$/.exec(rest)?.[1];
          if (id !== undefined && CLIENT_ID.test(id) && ids.size < MAX_LIMITER_CLIENTS) ids.add(id);
        }
      }
      return [...ids].sort();
    }),
  );
}
