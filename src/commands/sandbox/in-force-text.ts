import { formatDuration } from '../../core/duration.js';
import { sandboxCommand } from '../../core/sandbox-hint.js';
import type { FailoverInProgress, Fault } from '../../sandbox/index.js';

const signed = (ms: number): string => `${ms < 0 ? '-' : '+'}${formatDuration(Math.abs(ms))}`;

/** One fault in force as a sentence, with the verb that ends it where there is one. */
export function describeFault(sandbox: string, fault: Fault, now = Date.now()): string {
  const undo = (verb: string): string => `; undo: ${sandboxCommand(sandbox, verb, fault.node)}`;
  switch (fault.kind) {
    case 'paused':
      return `${fault.node} paused (SIGSTOP): it accepts connections and answers nothing${undo('resume')}`;
    case 'killed':
      return `${fault.node} killed: its port refuses connections${undo('restart')}`;
    case 'latency':
      return `${fault.node} ${formatDuration(fault.ms)} slower per round trip through its proxy${undo('heal')}`;
    case 'partition':
      return `${fault.node} partitioned from its clients (${fault.hold ? 'connections held open, nothing forwarded' : 'connections reset, new ones refused'})${undo('heal')}`;
    case 'proxy-down':
      return `${fault.node}'s fault proxy is not running, so its clients are refused (${fault.error})`;
    case 'clock':
      return `${fault.node} clock ${signed(fault.skewMs)} off real time, running x${fault.rate} (libfaketime)`;
    case 'replication-stall':
      return `${fault.node} applies no replication (stall-replication) for ${formatDuration(Math.max(0, fault.untilMs - now))} more${undo('heal')}`;
  }
}

/** The failover line: who sees the primary down, and how far the replacement has got. */
export function describeFailover(sandbox: string, failover: FailoverInProgress): string {
  const flags = failover.flags.join(', ');
  if (failover.by === 'sentinel') {
    const stage = failover.stage !== undefined ? `failover state ${failover.stage}` : 'no replica promoted yet';
    return `failover in progress: the sentinels see ${failover.primary} down (${flags}); ${stage}`;
  }
  const replicas = failover.replicas ?? [];
  if (replicas.length === 0) {
    return `primary down: the cluster flags ${failover.primary} ${flags} and it has no replica, so its slots are down until: ${sandboxCommand(sandbox, 'restart', failover.primary)}`;
  }
  return `failover in progress: the cluster flags ${failover.primary} ${flags}; its replica ${replicas.join(' or ')} takes over its slots`;
}
