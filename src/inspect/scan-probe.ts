import { isScriptRefusal } from '../redis/permissions.js';
import type { NodeClient } from './scan.js';

// One SCAN step and a first look at every key it returned, in one round trip, so the full
// snapshot (one script per key, with its companions and channels) only runs on keys that can be
// locks. Measured on 1M keys (docs/performance.md, "Inspect and ls"): sending the keys back as arguments
// and parsing a TYPE + PTTL + GET pipeline costs the client more than the server's whole SCAN;
// doing both inside one script leaves one reply per batch to parse.
//
// The script declares no KEYS: the keys come from this node's own SCAN, so they are all local,
// but they sit in many slots, and scripts without a shebang may touch several local slots
// (Redis 7's compatibility mode; older versions never checked). SCAN inside a script that writes
// nothing is allowed on every version we support.

/** Strings up to this size are read whole, the same limit as inspect-snapshot.lua's. */
export const PROBE_VALUE_MAX = 512;

/**
 * The type the probe gives a key it may not read: on a Cluster node importing a slot, SCAN
 * returns the keys already moved in, but a script may touch them only once the slot is the
 * node's own. The full snapshot reads it through the Cluster, which follows the slot's ASK.
 */
export const MOVING_IN = 'moving-in';

/**
 * scan-probe: SCAN once, then read-only facts about each key it returned.
 * KEYS: none. ARGV[1] cursor, ARGV[2] MATCH pattern, ARGV[3] COUNT.
 * Returns {next cursor, then four entries per key: name, type, 1 if a string is longer than
 * 512 bytes (else 0), a string's value when it is not ('' otherwise)}. GETRANGE answers strings
 * in one call and refuses other types, which then cost a TYPE: one call for most keys. A key
 * the node may not touch yet has type MOVING_IN. No PTTL:
 * a TTL can only make a string more lock-like, so the filter assumes one (see scan-filter.ts).
 * Writes nothing.
 */
export const SCAN_PROBE_LUA = `
local step = redis.call('scan', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
local out = { step[1] }
for _, key in ipairs(step[2]) do
  local t, long, value = 'string', 0, redis.pcall('getrange', key, 0, ${PROBE_VALUE_MAX})
  if type(value) == 'table' then
    local kind = redis.pcall('type', key)
    t, value = kind['ok'] or '${MOVING_IN}', ''
  elseif #value > ${PROBE_VALUE_MAX} then
    long, value = 1, ''
  end
  out[#out + 1] = key
  out[#out + 1] = t
  out[#out + 1] = long
  out[#out + 1] = value
end
return out`;

/** What the probe saw for one key. */
export interface KeyProbe {
  /** TYPE; a deleted key reads as an empty string. */
  readonly type: string;
  /** A string longer than PROBE_VALUE_MAX bytes (its value is not read). */
  readonly long: boolean;
  /** A string's value when at most PROBE_VALUE_MAX bytes; '' otherwise. */
  readonly value: string;
}

export interface ProbeStep {
  /** '0' when this node's keyspace is done. */
  readonly cursor: string;
  /** Names as bytes: a name that is not UTF-8 must survive the trip back to Redis. */
  readonly keys: Buffer[];
  readonly probes: KeyProbe[];
}

const COMMAND = 'redlockScanProbe';
const defined = new WeakSet<NodeClient>();
/** Nodes whose user may not run scripts: they get the probe as plain commands from then on. */
const scriptRefused = new WeakSet<NodeClient>();

type BufferCall = (...args: (string | number)[]) => Promise<unknown>;

/**
 * One SCAN step with its probe on one node (EVALSHA; ioredis falls back to EVAL once), or the
 * same reads as plain commands where the user may not run scripts.
 */
export async function probeStep(client: NodeClient, cursor: string, pattern: string, count: number): Promise<ProbeStep> {
  if (scriptRefused.has(client)) return plainProbeStep(client, cursor, pattern, count);
  try {
    return await scriptProbeStep(client, cursor, pattern, count);
  } catch (err) {
    if (!isScriptRefusal(err)) throw err;
    scriptRefused.add(client);
    return plainProbeStep(client, cursor, pattern, count);
  }
}

/** The probe without a script: SCAN, then one pipeline of TYPE and GETRANGE per key (two round trips). */
async function plainProbeStep(client: NodeClient, cursor: string, pattern: string, count: number): Promise<ProbeStep> {
  const [next, keys] = await client.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', count);
  const replies = (await client.pipeline(keys.flatMap((key) => [['type', key], ['getrange', key, 0, PROBE_VALUE_MAX]])).exec()) ?? [];
  const probes = keys.map((_, i): KeyProbe => {
    const [typeErr, type] = replies[2 * i] ?? [new Error('no reply')];
    if (typeErr) throw typeErr;
    const value = replies[2 * i + 1]?.[1];
    const long = type === 'string' && typeof value === 'string' && Buffer.byteLength(value) > PROBE_VALUE_MAX;
    // A key deleted since SCAN reads as '' (the script's TYPE gives 'none', GETRANGE '' too).
    return { type: type === 'none' ? 'string' : String(type), long, value: type === 'string' && !long ? String(value ?? '') : '' };
  });
  return { cursor: next.toString(), keys, probes };
}

async function scriptProbeStep(client: NodeClient, cursor: string, pattern: string, count: number): Promise<ProbeStep> {
  if (!defined.has(client)) {
    client.defineCommand(COMMAND, { numberOfKeys: 0, lua: SCAN_PROBE_LUA });
    defined.add(client);
  }
  // The Buffer variant ioredis adds for every defined command: names stay bytes.
  const call = (client as unknown as Record<string, BufferCall>)[`${COMMAND}Buffer`]!;
  return parseProbe(await call.call(client, cursor, pattern, count));
}

const text = (v: unknown): string | undefined => (Buffer.isBuffer(v) ? v.toString() : undefined);

/** Checks the reply's shape before anything reads it. */
export function parseProbe(reply: unknown): ProbeStep {
  const bad = (what: string): never => {
    throw new Error(`unexpected reply from the scan probe: ${what}`);
  };
  if (!Array.isArray(reply) || reply.length % 4 !== 1) return bad('not a cursor and groups of four');
  const cursor = text(reply[0]) ?? bad('no cursor');
  const keys: Buffer[] = [];
  const probes: KeyProbe[] = [];
  for (let i = 1; i < reply.length; i += 4) {
    const [key, type, long, value] = [reply[i], text(reply[i + 1]), reply[i + 2], text(reply[i + 3])];
    if (!Buffer.isBuffer(key) || type === undefined || typeof long !== 'number' || value === undefined) return bad(`entry ${(i - 1) / 4}`);
    keys.push(key);
    probes.push({ type, long: long === 1, value });
  }
  return { cursor, keys, probes };
}
