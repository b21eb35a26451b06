// Checks across fields that a schema of one value cannot make: steps name declared clients and
// variants, faults and reach lists name nodes the topology has, verbs fit the topology. Node names
// come from planTopology, the same plan the sandbox starts, so a file that passes here names
// exactly the nodes its run will have.

import { UsageError } from '../core/errors.js';
import { type PlannedNode, planTopology } from '../sandbox/plan.js';
import type { TopologyName } from '../sandbox/types.js';
import type { Path, Problem } from './locate.js';
import { isClientStep, isFaultStep, isWaitStep } from './model.js';
import type { ScenarioFile } from './schema.js';

/** Verbs that act through a redis node (its data, clock or fault proxy); a sentinel has none of these. */
const REDIS_ONLY = new Set(['stall-replication', 'clock', 'latency', 'partition', 'heal', 'flush']);
/** Topologies where a node is a replica of another: failover, stall-replication and WAIT need one. */
const REPLICATED: readonly TopologyName[] = ['replicated', 'sentinel'];
/** Topologies where `primary` names one node (the sandbox resolves it to the live primary); on REPLICATED ones `replicas` names every current replica. */
const ONE_PRIMARY: readonly TopologyName[] = ['single', 'replicated', 'sentinel'];

interface Nodes {
  readonly redis: readonly string[];
  readonly sentinels: readonly string[];
  /** How the topology reads in a message: `topology redlock with 3 nodes`. */
  readonly label: string;
}

function topologyNodes(file: ScenarioFile, problems: Problem[]): Nodes | undefined {
  const { topology, nodes } = file.sandbox;
  if (nodes !== undefined && topology !== 'redlock') {
    problems.push({ path: ['sandbox', 'nodes'], message: `goes with topology: redlock (the number of independent primaries); topology ${topology} has a fixed set of nodes` });
    return undefined;
  }
  let plan: PlannedNode[];
  try {
    plan = planTopology(topology, { nodes });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    problems.push({ path: ['sandbox', 'nodes'], message: err.message.replace(/^--nodes /, '') });
    return undefined;
  }
  const redis = plan.filter((n) => n.role !== 'sentinel').map((n) => n.name);
  const label = topology === 'redlock' ? `topology redlock with ${redis.length} node${redis.length === 1 ? '' : 's'}` : `topology ${topology}`;
  return {
    redis: [...redis, ...(ONE_PRIMARY.includes(topology) ? ['primary'] : []), ...(REPLICATED.includes(topology) ? ['replicas'] : [])],
    sentinels: plan.filter((n) => n.role === 'sentinel').map((n) => n.name),
    label,
  };
}

/** Where a list-or-single value sits: `only[1]` when the file wrote a list, `only` when one name. */
function itemPath(base: Path, raw: unknown, i: number): Path {
  return Array.isArray(raw) ? [...base, i] : base;
}

const rawAt = (raw: unknown, path: Path): unknown =>
  path.reduce<unknown>((v, seg) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[seg] : undefined), raw);

/** Every cross-field problem of a file that passed the schema; `raw` is the file's plain data (for paths). */
export function crossCheck(file: ScenarioFile, raw: unknown): Problem[] {
  const problems: Problem[] = [];
  const nodes = topologyNodes(file, problems);
  const { topology } = file.sandbox;
  const clients = file.clients.map((c) => c.name);
  const variants = file.variants.map((v) => v.name);

  const checkNode = (path: Path, node: string, opts: { sentinels: boolean; verb?: string }): void => {
    if (!nodes) return;
    if (nodes.sentinels.includes(node) && !opts.sentinels) {
      problems.push({ path, message: `${opts.verb ?? 'this'} applies to redis nodes, and ${node} is a sentinel` });
    } else if (!nodes.redis.includes(node) && !nodes.sentinels.includes(node)) {
      const known = [...nodes.redis, ...(opts.sentinels ? nodes.sentinels : [])].join(', ');
      problems.push({ path, message: `unknown node "${node}"; ${nodes.label} has ${known}` });
    }
  };

  file.clients.forEach((c, i) => {
    const first = clients.indexOf(c.name);
    if (first !== i) problems.push({ path: ['clients', i], message: `duplicate client "${c.name}" (clients[${first}] has the same name)` });
    else if (nodes && [...nodes.redis, ...nodes.sentinels, 'scenario'].includes(c.name)) {
      problems.push({ path: ['clients', i], message: `client "${c.name}" has the name of a timeline lane (a node or scenario); pick another` });
    }
    c.reach?.forEach((n, j) => checkNode(['clients', i, 'reach', j], n, { sentinels: false }));
  });

  const onlyRaw = (i: number): unknown => rawAt(raw, ['steps', i, 'only']);
  file.steps.forEach((step, i) => {
    step.only?.forEach((v, j) => {
      if (!variants.includes(v)) problems.push({ path: itemPath(['steps', i, 'only'], onlyRaw(i), j), message: `unknown variant "${v}"; expected one of ${variants.join(', ')}` });
    });
    if (isClientStep(step)) {
      if (!clients.includes(step.client)) problems.push({ path: ['steps', i, 'client'], message: `unknown client "${step.client}"; expected one of ${clients.join(', ')}` });
      if (step.do === 'partition') step.nodes?.forEach((n, j) => checkNode(['steps', i, 'nodes', j], n, { sentinels: false }));
      if (step.do === 'acquire' && step.waitReplicas !== undefined && !REPLICATED.includes(topology)) {
        problems.push({ path: ['steps', i, 'wait-replicas'], message: `needs a topology with replicas (replicated or sentinel); ${topology} has none` });
      }
    } else if (isWaitStep(step)) {
      const w = step.wait;
      if (w.until === 'reply' && !clients.includes(w.client)) problems.push({ path: ['steps', i, 'wait', 'client'], message: `unknown client "${w.client}"; expected one of ${clients.join(', ')}` });
      if (w.until === 'expired' && w.node === 'replicas') problems.push({ path: ['steps', i, 'wait', 'node'], message: 'a wait reads one node (n1, primary, ...), not replicas' });
      else if (w.until === 'expired' && w.node !== undefined) checkNode(['steps', i, 'wait', 'node'], w.node, { sentinels: false, verb: 'a wait until expired' });
    } else if (isFaultStep(step)) {
      if ((step.fault === 'failover' || step.fault === 'stall-replication') && !REPLICATED.includes(topology)) {
        problems.push({ path: ['steps', i, 'fault'], message: `${step.fault} needs a topology with replicas (replicated or sentinel); ${topology} has none` });
      } else if (step.fault === 'stall-replication' && step.node === 'primary') {
        problems.push({ path: ['steps', i, 'node'], message: 'stall-replication acts on a replica (n2, n3), and primary is the primary' });
      } else if (step.fault === 'restart' && step.amnesia === true && nodes?.sentinels.includes(step.node ?? '')) {
        problems.push({ path: ['steps', i, 'amnesia'], message: `a sentinel holds no keys: restart ${step.node} without amnesia` });
      } else if (step.node !== undefined) {
        checkNode(['steps', i, 'node'], step.node, { sentinels: !REDIS_ONLY.has(step.fault), verb: step.fault });
      }
    }
  });
  return problems;
}
