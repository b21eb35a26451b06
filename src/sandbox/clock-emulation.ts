import type { CommandRunner } from './clock-runner.js';

/**
 * Emulates a wall-clock jump of ARGV[1] ms on this node without touching its clock: every key
 * with a TTL has it lowered by that much (raised for a backward jump); a TTL that runs out is
 * expired now, since PEXPIRE with a non-positive time deletes the key.
 * ARGV[2..]: the databases to walk. Returns {keys with a TTL, keys expired}.
 * One script, so no client sees the node half-jumped. SCAN can return a key twice while the
 * keyspace is rehashing: `seen` keeps a key from being lowered twice.
 */
const REWRITE_TTLS_LUA = `
local delta = tonumber(ARGV[1])
local changed, expired = 0, 0
for i = 2, #ARGV do
  redis.call('SELECT', ARGV[i])
  local seen = {}
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'COUNT', 1000)
    cursor = page[1]
    for _, key in ipairs(page[2]) do
      if not seen[key] then
        seen[key] = true
        local ttl = redis.call('PTTL', key)
        if ttl > 0 then
          changed = changed + 1
          if ttl - delta <= 0 then expired = expired + 1 end
          redis.call('PEXPIRE', key, ttl - delta)
        end
      end
    end
  until cursor == '0'
end
return {changed, expired}
`;

export interface TtlRewrite {
  /** Keys that had a TTL. */
  readonly keys: number;
  /** Of those, keys whose TTL ran out and were expired now. */
  readonly expired: number;
}

/** Databases holding keys with a TTL, from INFO keyspace (`db3:keys=5,expires=2,...`). */
async function databasesWithTtls(client: CommandRunner): Promise<string[]> {
  const info = String(await client.call('INFO', 'keyspace'));
  return [...info.matchAll(/^db(\d+):keys=\d+,expires=(\d+)/gm)].filter((m) => m[2] !== '0').map((m) => m[1]!);
}

/** Applies a clock jump of `deltaMs` to the node's key expiry in one Lua pass. */
export async function rewriteTtls(client: CommandRunner, deltaMs: number): Promise<TtlRewrite> {
  const dbs = await databasesWithTtls(client);
  if (dbs.length === 0) return { keys: 0, expired: 0 };
  const reply = await client.call('EVAL', REWRITE_TTLS_LUA, 0, Math.round(deltaMs), ...dbs);
  if (!Array.isArray(reply) || reply.length !== 2 || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`unexpected reply from the TTL rewrite: ${JSON.stringify(reply)}`);
  }
  return { keys: reply[0] as number, expired: reply[1] as number };
}
