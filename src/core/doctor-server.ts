import { formatDuration } from './duration.js';
import { keyWord, redisCli, redlockCli, type FixTarget } from './doctor-fix.js';
import type { Finding } from './doctor.js';

// Doctor checks about servers rather than single keys: replicas that lag (a failover would lose
// recent locks, scenario master-failover-lock-loss) and renewals that outlive their holder
// (scenario watchdog-crash-vs-hang). Pure: the command
// layer gathers INFO / CLIENT LIST / two snapshots and hands them in.

export interface ReplicaFacts {
  readonly addr: string;
  readonly state: string;
  /** Replication offset the replica last acknowledged. */
  readonly offset: number;
  /** Seconds since its last acknowledgement (replicas send one every second). */
  readonly lagSec: number;
}

export interface ReplicationFacts {
  /** host:port of the primary. */
  readonly node: string;
  readonly role: string;
  readonly masterOffset: number;
  readonly replicas: readonly ReplicaFacts[];
}

/** A healthy replica acknowledges every second: two missed acknowledgements are a lag. */
export const REPLICA_LAG_SEC = 2;
/** Or this far behind in bytes, whatever the acknowledgements say. */
export const REPLICA_LAG_BYTES = 1024 * 1024;

/** Parses `INFO replication` of a primary. */
export function parseReplicationInfo(node: string, text: string): ReplicationFacts {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  const replicas: ReplicaFacts[] = [];
  for (const [name, value] of fields) {
    if (!/^slave\d+$/.test(name)) continue;
    const kv = new Map(value.split(',').map((pair) => pair.split('=') as [string, string]));
    replicas.push({
      addr: `${kv.get('ip') ?? '?'}:${kv.get('port') ?? '?'}`,
      state: kv.get('state') ?? 'unknown',
      offset: Number(kv.get('offset') ?? 0),
      lagSec: Number(kv.get('lag') ?? 0),
    });
  }
  return { node, role: fields.get('role') ?? 'unknown', masterOffset: Number(fields.get('master_repl_offset') ?? 0), replicas };
}

/** Replicas that are not online, or lag in time or bytes, on one primary. */
export function replicaFindings(facts: ReplicationFacts, target: FixTarget): Finding[] {
  const fix = redisCli(target, 'CONFIG', 'SET', 'min-replicas-to-write', '1', 'min-replicas-max-lag', '10');
  const findings: Finding[] = [];
  for (const r of facts.replicas) {
    const behind = Math.max(0, facts.masterOffset - r.offset);
    if (r.state !== 'online') {
      findings.push({
        severity: 'error',
        code: 'replica-offline',
        key: null,
        node: facts.node,
        message: `replica ${r.addr} of ${facts.node} is ${r.state}, not online: locks written since have no copy, and a failover to it would drop them (two holders). To make the primary refuse lock writes while no replica keeps up, run:`,
        fix,
      });
    } else if (r.lagSec >= REPLICA_LAG_SEC || behind >= REPLICA_LAG_BYTES) {
      findings.push({
        severity: 'warning',
        code: 'replica-lag',
        key: null,
        node: facts.node,
        message: `replica ${r.addr} of ${facts.node} is ${behind} bytes behind and last acknowledged ${r.lagSec} s ago: a failover now would lose the newest locks (two holders). To make the primary refuse lock writes while no replica keeps up, run:`,
        fix,
      });
    }
  }
  return findings;
}

/** One Redisson-held lock seen in two snapshots a moment apart. */
export interface RenewalSample {
  readonly key: string;
  readonly node: string;
  /** The lock kind as force-unlock names it (reentrant, fair, fenced, read, write). */
  readonly kind: string;
  /** Redisson client UUID of the holder. */
  readonly client: string;
  readonly ttlBeforeMs: number;
  readonly ttlAfterMs: number;
  /** Time between the two reads. */
  readonly elapsedMs: number;
}

/** TTLs read a moment apart wobble by a few ms; a renewal adds seconds. */
const RENEWAL_SLACK_MS = 100;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Client UUIDs that appear in CLIENT LIST connection names (`name=`), lower-cased. */
export function namedClients(clientList: string): Set<string> {
  const names = new Set<string>();
  for (const match of clientList.matchAll(/(?:^| )name=(\S*)/gm)) {
    for (const uuid of match[1]!.matchAll(UUID)) names.add(uuid[0].toLowerCase());
  }
  return names;
}

export const wasRenewed = (s: RenewalSample): boolean => s.ttlAfterMs > s.ttlBeforeMs - s.elapsedMs + RENEWAL_SLACK_MS;

/**
 * A lock whose TTL jumped back up while no connection carries its holder's client UUID in its
 * name: someone renews a lock for a holder that is not connected (scenario watchdog-crash-vs-hang, Redisson PR
 * #7098). Connections only carry names their clients set, so with no UUID in any name the
 * holder's presence is invisible: then there are no findings, only a note saying so.
 */
export function renewalFindings(
  samples: readonly RenewalSample[],
  connected: ReadonlySet<string>,
  targetOf: (node: string) => FixTarget,
): { findings: Finding[]; note?: string } {
  const renewed = samples.filter(wasRenewed);
  if (connected.size === 0) {
    return {
      findings: [],
      ...(renewed.length > 0
        ? { note: `${renewed.length} lock(s) renewed while doctor watched; no connection name carries a client UUID (CLIENT LIST), so whether their holders are still connected is not visible` }
        : {}),
    };
  }
  const findings = renewed
    .filter((s) => !connected.has(s.client.toLowerCase()))
    .map<Finding>((s) => ({
      severity: 'warning',
      code: 'renewed-without-holder',
      key: s.key,
      node: s.node,
      message: `its TTL went from ${formatDuration(s.ttlBeforeMs)} up to ${formatDuration(s.ttlAfterMs)}, yet no connection is named with its holder's client ${s.client}: a watchdog keeps renewing a lock whose holder is gone. If that holder is really dead, free it:`,
      fix: redlockCli(targetOf(s.node), 'force-unlock', keyWord(targetOf(s.node), s.key), '--kind', s.kind, '--yes'),
    }));
  return { findings };
}
