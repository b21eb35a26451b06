import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { respRunner } from './clock-runner.js';
import type { ActionResult } from './faults.js';
import { DEFAULT_STALL_MS, stallReplication, type StallResult } from './stall.js';
import { withNode } from './state.js';
import type { Supervisor } from './supervisor.js';

export interface StallActionResult extends ActionResult {
  readonly stall: StallResult;
}

/** `stall-replication <replica> [--for 3s]`: acknowledged writes miss the replica until the stall ends. */
export async function stallReplicationVerb(sup: Supervisor, name: string, forMs = DEFAULT_STALL_MS): Promise<StallActionResult> {
  const node = sup.record(name);
  if (node.role === 'sentinel' || node.state === 'killed' || !sup.owns(node)) {
    throw new UsageError(`cannot stall replication on ${name}: ${node.role === 'sentinel' ? 'it is a sentinel' : 'it is not running'}`);
  }
  const started = Date.now();
  const stall = await stallReplication(respRunner(node.port), forMs).catch((err: unknown) => {
    throw err instanceof UsageError ? new UsageError(`${name}: ${err.message}`) : err;
  });
  // Redis does not report a CLIENT PAUSE in INFO (7.0), so `status` learns of the stall from here.
  sup.update((s) => withNode(s, name, { stalledUntil: stall.untilMs }));
  const message =
    `stalled replication on ${name} for ${formatDuration(forMs)} (CLIENT PAUSE WRITE): writes its primary acknowledges ` +
    `from now on do not reach it; if the primary dies meanwhile they are lost in a failover ` +
    `(WAIT 1 <ms> on the writing connection reports 0). It ends by itself, or with: ${sandboxCommand(sup.state.name, 'heal', name)}`;
  return { verb: 'stall-replication', node: name, pid: node.pid, port: node.port, message, ms: Date.now() - started, stall };
}
