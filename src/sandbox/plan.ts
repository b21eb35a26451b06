import type { CountBounds } from '../core/count.js';
import { UsageError } from '../core/errors.js';
import type { NodeRole, TopologyName } from './types.js';

/** A node the topology needs, before it has a port or a pid. */
export interface PlannedNode {
  readonly name: string;
  readonly role: NodeRole;
  /** For replicas: the node it replicates (by `replicaof`, or `CLUSTER REPLICATE` in a cluster). */
  readonly replicaOf?: string;
}

export const DEFAULT_REDLOCK_NODES = 5;
const MAX_NODES = 15;
/** --nodes of a redlock sandbox and --replicas per cluster primary. */
export const NODES_BOUNDS = { min: 1, max: MAX_NODES } as const;
export const REPLICAS_BOUNDS = { min: 0, max: 1 } as const;
const SENTINELS = 3;

// Neutral names (n1, n2, s1) rather than "primary"/"replica": roles change in a failover, names
// must not. The alias `primary` resolves to whichever node is primary right now.
const redisName = (i: number): string => `n${i + 1}`;
const sentinelName = (i: number): string => `s${i + 1}`;

function primaries(count: number): PlannedNode[] {
  return Array.from({ length: count }, (_, i) => ({ name: redisName(i), role: 'primary' as const }));
}

function checkCount(value: number, flag: string, { min, max }: CountBounds): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`);
  return value;
}

/** The redis nodes (primaries first) and sentinels a topology consists of. */
export function planTopology(topology: TopologyName, opts: { nodes?: number | undefined; replicas?: number | undefined }): PlannedNode[] {
  if (opts.nodes !== undefined && topology !== 'redlock') throw new UsageError('--nodes goes with --topology redlock');
  if (opts.replicas !== undefined && topology !== 'cluster') throw new UsageError('--replicas goes with --topology cluster');
  switch (topology) {
    case 'single':
      return primaries(1);
    case 'replicated':
    case 'sentinel': {
      const nodes: PlannedNode[] = [
        ...primaries(1),
        { name: redisName(1), role: 'replica', replicaOf: redisName(0) },
        { name: redisName(2), role: 'replica', replicaOf: redisName(0) },
      ];
      if (topology === 'replicated') return nodes;
      return [...nodes, ...Array.from({ length: SENTINELS }, (_, i) => ({ name: sentinelName(i), role: 'sentinel' as const }))];
    }
    case 'redlock':
      return primaries(checkCount(opts.nodes ?? DEFAULT_REDLOCK_NODES, '--nodes', NODES_BOUNDS));
    case 'cluster': {
      const replicas = checkCount(opts.replicas ?? 0, '--replicas', REPLICAS_BOUNDS);
      const masters = primaries(3);
      const copies = replicas === 0 ? [] : masters.map((m, i) => ({ name: redisName(3 + i), role: 'replica' as const, replicaOf: m.name }));
      return [...masters, ...copies];
    }
  }
}
