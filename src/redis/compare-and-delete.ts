import type { RedisClient } from './connection.js';
import { runScript, translateScriptError } from './scripts.js';
import { sendLockCommand } from './server-time.js';

/** How a server deletes a key only if it still holds our token. */
export type DeleteStrategy = 'delex' | 'delifeq' | 'lua';

export interface DeleteCapabilities {
  /** `DELEX key IFEQ value`: Redis 8.4+, Valkey 9.2+. */
  readonly delex: boolean;
  /** `DELIFEQ key value`: Valkey 9.0+. */
  readonly delifeq: boolean;
}

/** Native compare-and-delete where the server has one (no script to cache, works where EVAL is denied); Lua elsewhere. */
export function chooseDeleteStrategy(caps: DeleteCapabilities): DeleteStrategy {
  if (caps.delex) return 'delex';
  if (caps.delifeq) return 'delifeq';
  return 'lua';
}

/** Reads `COMMAND INFO DELEX DELIFEQ`: one entry per name, an array if the server knows it, nil if not. */
export function capabilitiesFromCommandInfo(reply: unknown): DeleteCapabilities {
  const known = (i: number): boolean => Array.isArray(reply) && Array.isArray(reply[i]);
  return { delex: known(0), delifeq: known(1) };
}

// Detected once per client: a connection talks to one server, whose command table does not change.
const strategies = new WeakMap<RedisClient, Promise<DeleteStrategy>>();
// The same, once known: a release on a busy loop then skips a wait on a settled promise.
const settled = new WeakMap<RedisClient, DeleteStrategy>();

/** The strategy for this client's server (one COMMAND INFO round trip the first time). */
export function deleteStrategy(client: RedisClient): Promise<DeleteStrategy> {
  let strategy = strategies.get(client);
  if (strategy === undefined) {
    strategy = client
      .call('COMMAND', 'INFO', 'DELEX', 'DELIFEQ')
      .then((reply) => chooseDeleteStrategy(capabilitiesFromCommandInfo(reply)))
      // COMMAND may be denied by an ACL: the Lua script works on every server we support.
      .catch(() => 'lua' as const)
      .then((known) => {
        settled.set(client, known);
        return known;
      });
    strategies.set(client, strategy);
  }
  return strategy;
}

/** Deletes `key` only if its value is `token`: true deleted, false not ours (or gone). */
export async function compareAndDelete(client: RedisClient, key: string, token: string): Promise<boolean> {
  const strategy = settled.get(client) ?? (await deleteStrategy(client));
  let reply: unknown;
  if (strategy === 'lua') {
    reply = await runScript(client, 'tokenRelease', [key], [token]);
  } else {
    try {
      reply = strategy === 'delex' ? await sendLockCommand(client, 'delex', [key, 'IFEQ', token]) : await sendLockCommand(client, 'delifeq', [key, token]);
    } catch (err) {
      throw translateScriptError(err, key);
    }
  }
  // Lua answers nil for "not ours"; DELEX and DELIFEQ answer 0.
  if (reply === null || reply === 0) return false;
  if (reply === 1) return true;
  throw new Error(`unexpected reply from compare-and-delete (${strategy}): ${JSON.stringify(reply)}`);
}
