import { UsageError } from '../core/errors.js';
import type { CommandRunner } from './clock-runner.js';
import { RespClosed } from './resp.js';

/**
 * Replication stalls: make a write the primary acknowledged miss the replica, so a failover
 * right after loses it (scenario S6), and the WAIT check that catches it.
 *
 * `CLIENT PAUSE <ms> WRITE` on the replica stops it applying its primary's stream (10/10 in
 * docs/fault-recipes.md). What looks equivalent does not work: SIGSTOP of the replica, `DEBUG SLEEP`
 * on it, or SIGKILL of the primary right after the reply: the write is already in the replica's
 * socket buffer and lands anyway. Under the pause it is read but not applied, and it is dropped
 * when the link to a dead primary closes, whether the replica is unpaused or promoted first.
 */

/** Long enough to kill a primary and let Sentinel notice (down-after 500 ms), short enough to end on its own. */
export const DEFAULT_STALL_MS = 5000;

export interface StallResult {
  /** When the pause ends by itself (epoch ms), unless resumeReplication() comes first. */
  readonly untilMs: number;
  /** The replica's applied offset when the stall began: nothing past it arrives until then. */
  readonly offset: number;
}

/** The node's role and replication offset from ROLE. */
async function role(node: CommandRunner): Promise<{ role: string; offset: number }> {
  const reply = await node.call('ROLE');
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error(`unexpected ROLE reply: ${JSON.stringify(reply)}`);
  // master: [role, offset, replicas]; slave: [role, host, port, link state, offset].
  const offset = reply[0] === 'master' ? reply[1] : reply[0] === 'slave' ? reply[4] : -1;
  return { role: reply[0], offset: Number(offset) };
}

/** Stops `replica` applying its replication stream for `forMs`; refuses a node that is not a replica. */
export async function stallReplication(replica: CommandRunner, forMs = DEFAULT_STALL_MS): Promise<StallResult> {
  if (!Number.isInteger(forMs) || forMs <= 0) throw new UsageError(`invalid stall duration ${forMs} ms: must be a positive whole number`);
  const before = await role(replica);
  if (before.role !== 'slave') {
    throw new UsageError(`stall-replication needs a replica, and this node is a ${before.role === 'master' ? 'primary' : before.role}`);
  }
  await replica.call('CLIENT', 'PAUSE', forMs, 'WRITE');
  return { untilMs: Date.now() + forMs, offset: before.offset };
}

/**
 * Lets the replica apply its stream again: it catches up, unless its primary died meanwhile.
 *
 * After a failover, Sentinel's reconfiguration of this replica (MULTI, SLAVEOF, ..., CLIENT KILL
 * TYPE normal, EXEC) is held back by the pause, so our UNPAUSE releases it and Redis runs that
 * EXEC before writing our reply: the connection closes with the unpause done. UNPAUSE is
 * idempotent, so a closed connection is answered by asking once more on a fresh one.
 */
export async function resumeReplication(replica: CommandRunner): Promise<void> {
  try {
    await replica.call('CLIENT', 'UNPAUSE');
  } catch (err) {
    if (!(err instanceof RespClosed)) throw err;
    await replica.call('CLIENT', 'UNPAUSE');
  }
}

/**
 * How many replicas acknowledged this connection's writes within `timeoutMs`. It must be the
 * connection that wrote the lock: WAIT counts up to that client's own last write, so asked on
 * another connection it can answer "1" for a lock no replica has.
 */
export async function waitForReplicas(sameConnection: CommandRunner, replicas: number, timeoutMs: number): Promise<number> {
  const reply = await sameConnection.call('WAIT', replicas, timeoutMs);
  if (typeof reply !== 'number') throw new Error(`unexpected WAIT reply: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * Whether the replica has applied everything the primary had written when this is called:
 * offsets from ROLE on each node. The primary's own view of its replicas (INFO) refreshes only
 * once a second and says "up" through a stall, so it is not asked.
 */
export async function replicaCaughtUp(primary: CommandRunner, replica: CommandRunner): Promise<{ caughtUp: boolean; lagBytes: number }> {
  const [p, r] = await Promise.all([role(primary), role(replica)]);
  return { caughtUp: r.offset >= p.offset, lagBytes: Math.max(0, p.offset - r.offset) };
}
