// A recording of Redlock's independent primaries (trace --nodes) turned into a scenario: the two
// owners whose majorities overlapped become clients A and B, each reaching the nodes it took, and
// the node both counted gets the fault the trace saw on it: a clock step (fake-clock nodes jump
// as far), or a restart that lost A's key (the trace was blind on it, then found the key gone).
// An owner that went on as holder after its validity (its releases refused on a majority) is a
// freeze of that owner, replayed by redlock-lost-validity.ts.
// The fixed variant is the catalogue's operational fix for that fault: slew-only time (an offset
// inside Redlock's drift allowance), or a delayed restart (the node back after A's lease). Times
// are ms since A's first vote, on the nodes' common scale (quorum.ts), scaled down to a lease of
// at most a second so a long lease replays quickly with the same interleaving.

import type { Finding } from './checker.js';
import { NodeTimes } from './clock-steps.js';
import { shortClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';
import { ms, replayScale, type Step } from './incident-plan.js';
import { chooseFinding, type IncidentPick } from './incident.js';
import type { ScenarioSpec } from './incident-scenario.js';
import { lostValidityPlan } from './redlock-lost-validity.js';
import { redlockSpec, type RedlockActor } from './redlock-replay.js';
import { quorumOf } from '../redlock-quorum.js';

export type RedlockFault = 'clock-step' | 'restart' | 'pause';

export interface RedlockIncident {
  readonly finding: Finding;
  /** 1-based, among the recording's unsafe findings. */
  readonly number: number;
  readonly fault: RedlockFault;
  /** The node both majorities counted, as the scenario names it (n1, n2, ...); none for a pause. */
  readonly node: string | undefined;
  readonly spec: ScenarioSpec;
}

export type RedlockResult = { readonly ok: true; readonly incident: RedlockIncident } | { readonly ok: false; readonly problem: string };

/** The fixed clock: a slewed error well inside the drift allowance (1 % of a second's lease + 2 ms). */
const SLEWED_MS = 10;

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });

/** The incident behind an overlap of two Redlock majorities, and the scenario that replays it. */
export function inferRedlockIncident(events: readonly TraceEvent[], findings: readonly Finding[], nodes: readonly string[], source: string, pick: IncidentPick = {}): RedlockResult {
  const unsafe = findings.filter((f) => f.unsafe);
  // Unpicked, the first majority's finding: each node's own findings come first in the recording.
  const firstQuorum = unsafe.findIndex((f) => f.quorum);
  const chosen = chooseFinding(unsafe, findings, pick.finding === undefined && pick.at === undefined && firstQuorum >= 0 ? { finding: firstQuorum + 1 } : pick);
  if (!chosen.ok) return chosen;
  const { finding, number } = chosen;
  if (!finding.quorum) return fail(`${finding.kind} on ${finding.lock} is one node's finding: a Redlock replay starts from a majority's finding (two majorities that overlap, or an owner past its validity)`);
  const times = NodeTimes.of(events);
  const name = (node: string) => `n${nodes.indexOf(node) + 1}`;
  if (finding.kind === 'expired-while-held') return pauseIncident(events, times, finding, number, nodes, name, source, finding.to);
  const [a, b] = finding.owners.map((owner) => actor(events, times, finding, owner, name));
  if (!a || !b) return fail(`the overlap on ${finding.lock} at ${traceTime(finding.from)}: the trace did not see both owners take their nodes`);
  const shared = a.nodes.filter((n) => b.nodes.includes(n));
  for (const node of shared) {
    const label = nodes[Number(node.slice(1)) - 1]!;
    const onNode = events.filter((e) => e.node === label && times.comparable(label, e.t) >= a.at && times.comparable(label, e.t) <= finding.from);
    const step = onNode.find((e) => e.kind === 'clock-step');
    if (step) return ok(finding, number, 'clock-step', node, plan(a, b, node, nodes.length, finding, source, { kind: 'clock-step', at: times.comparable(label, step.t), stepMs: step.stepMs ?? 0 }));
    const blind = onNode.find((e) => e.kind === 'blind');
    if (blind) return ok(finding, number, 'restart', node, plan(a, b, node, nodes.length, finding, source, { kind: 'restart', at: times.comparable(label, blind.t) }));
  }
  // No fault on a node both counted: A's majority lapsed and it went on as holder (quorum.ts's stale window).
  const stale = staleActAt(events, times, finding);
  if (stale !== undefined) return pauseIncident(events, times, finding, number, nodes, name, source, stale);
  return fail(`the overlap on ${finding.lock} at ${traceTime(finding.from)}: the trace saw no clock step or restart on the node${shared.length === 1 ? '' : 's'} both majorities counted (${shared.join(', ') || 'none'}): its fault is not inferred`);
}

/** The last refused release or renewal of the finding's first owner after the finding began: it went on as holder. */
function staleActAt(events: readonly TraceEvent[], times: NodeTimes, finding: Finding): number | undefined {
  let last: number | undefined;
  for (const e of events) {
    if ((e.kind !== 'release-refused' && e.kind !== 'renew-refused') || e.lock !== finding.lock || e.owner !== finding.owners[0] || e.node === undefined) continue;
    const t = times.comparable(e.node, e.t);
    if (t >= finding.from && (last === undefined || t > last)) last = t;
  }
  return last;
}

/** A past its validity: B is the first other owner that took a majority before A's last act. */
function pauseIncident(events: readonly TraceEvent[], times: NodeTimes, finding: Finding, number: number, nodes: readonly string[], name: (node: string) => string, source: string, last: number): RedlockResult {
  const a = actor(events, times, finding, finding.owners[0], name);
  const others = new Set(events.filter((e) => e.kind === 'acquired' && e.lock === finding.lock && e.owner !== undefined && e.owner !== finding.owners[0]).map((e) => e.owner!));
  const b = [...others].map((o) => actor(events, times, { ...finding, to: last }, o, name)).find((x) => x !== undefined && x.at >= (a?.at ?? 0) && x.nodes.length >= quorumOf(nodes.length));
  if (!a || !b) return fail(`${finding.kind} on ${finding.lock} at ${traceTime(finding.from)}: the trace did not see the owner take its nodes and another owner take a majority before its last act`);
  return ok(finding, number, 'pause', undefined, lostValidityPlan(a, b, last, nodes.length, finding, source));
}

const ok = (finding: Finding, number: number, fault: RedlockFault, node: string | undefined, spec: ScenarioSpec): RedlockResult => ({ ok: true, incident: { finding, number, fault, node, spec } });

/** An owner of the overlap: its acquisitions up to the overlap's end (its round), on the nodes' common scale. */
function actor(events: readonly TraceEvent[], times: NodeTimes, finding: Finding, owner: string | undefined, name: (node: string) => string): RedlockActor | undefined {
  const taken = events.filter((e) => e.kind === 'acquired' && e.lock === finding.lock && e.owner === owner && e.node !== undefined && times.comparable(e.node, e.t) <= finding.to);
  const first = taken[0];
  if (owner === undefined || !first || first.leaseMs === undefined) return undefined;
  return { owner, seenAs: shortClient(first), at: Math.min(...taken.map((e) => times.comparable(e.node, e.t))), leaseMs: first.leaseMs, nodes: [...new Set(taken.map((e) => name(e.node!)))].sort(byNumber) };
}

const byNumber = (x: string, y: string) => Number(x.slice(1)) - Number(y.slice(1));

type Fault = { readonly kind: 'clock-step'; readonly at: number; readonly stepMs: number } | { readonly kind: 'restart'; readonly at: number };

function plan(a: RedlockActor, b: RedlockActor, node: string, count: number, finding: Finding, source: string, fault: Fault): ScenarioSpec {
  const scale = replayScale(a.leaseMs);
  const at = (t: number) => Math.round((t - a.at) * scale);
  const lease = Math.round(a.leaseMs * scale);
  const faultAt = Math.max(at(fault.at), 60);
  // B after the fault by a margin a busy machine keeps: a restarted node needs a moment to be back.
  const bAt = Math.max(at(b.at), faultAt + (fault.kind === 'restart' ? 300 : 100));
  // A leaves late in its validity (1 % + 2 ms short of the lease): a B that had to try twice (a
  // node still coming back) is inside with it all the same, and A is out before its validity ends.
  const aLeave = Math.max(bAt + 150, lease - 150);
  // When A's key is gone everywhere in the fixed variant: its lease ran out, and (restart) the node is back.
  const restartAt = faultAt + lease + 200;
  const free = fault.kind === 'restart' ? restartAt : lease;
  const bLeave = free + 400;
  const bLease = Math.max(Math.round(b.leaseMs * scale), bLeave - bAt + 300);
  const bWait = free - bAt + 600;
  const clock = fault.kind === 'clock-step';
  const jump = `+${(Math.max(fault.kind === 'clock-step' ? fault.stepMs : 0, 2 * lease) / 1000).toFixed(1)}s`;
  const steps: Step[] = [
    { at: '0ms', client: 'A', do: 'acquire', lease: ms(lease) },
    { at: '50ms', client: 'A', do: 'enter' },
    ...(clock
      ? [
          { at: ms(faultAt), fault: 'clock', node, value: jump, only: 'unsafe' },
          { at: ms(faultAt), fault: 'clock', node, value: `+${SLEWED_MS}ms`, only: 'fixed' },
        ]
      : [
          { at: ms(faultAt), fault: 'restart', node, amnesia: true, only: 'unsafe' },
          { at: ms(faultAt), fault: 'kill', node, only: 'fixed' },
          { at: ms(restartAt), fault: 'restart', node, amnesia: true, only: 'fixed' },
        ]),
    { at: ms(bAt), client: 'B', do: 'acquire', lease: ms(bLease), wait: ms(bWait) },
    { at: ms(bAt + 50), client: 'B', do: 'enter' },
    // A stays inside until B's acquire came back: a B that needed a second try (the node still
    // coming back) makes the run late (inconclusive), never a race that missed its overlap.
    { at: ms(bAt + 60), wait: { until: 'reply', client: 'B' }, only: 'unsafe' },
    { at: ms(aLeave), client: 'A', do: 'leave' },
    { at: ms(bLeave), client: 'B', do: 'leave' },
    { at: ms(bLeave), client: 'B', do: 'release' },
  ];
  const what = clock ? `${node}'s clock stepped ${(fault.stepMs / 1000).toFixed(1)} s forward, which expired A's key there early` : `${node} restarted without its data and forgot A's key`;
  return redlockSpec(a, b, count, finding, source, scale, {
    what: 'overlap',
    summary: `${clock ? `${node}'s clock jumps` : `${node} restarts empty`} while A holds the lock, and B gets a second majority through it`,
    narration:
      `${count} independent Redis primaries. A (${a.seenAs} in the trace) took ${a.nodes.join(', ')}, a majority, with a ${ms(lease)} lease. ` +
      `Then ${what}, and B (${b.seenAs} in the trace) took ${b.nodes.join(', ')}: a second majority while A was still within its validity.\n\n` +
      `The fix: ${clock ? `slew-only time (the node ${SLEWED_MS} ms ahead, inside Redlock's drift allowance)` : `a delayed restart (${node} back ${ms(restartAt - faultAt)} after the crash, after A's lease)`}; B waits until A's lease has run out.`,
    lookFor: [`${node}'s ${clock ? 'clock step' : 'restart'} at ${ms(faultAt)}`, `B taking ${b.nodes.join(', ')} at ${ms(bAt)} while A is inside (unsafe)`, 'B refused until A\'s lease has run out (fixed)'],
    sandbox: clock ? { 'fake-clock': true } : { config: { appendonly: 'no', save: '' } },
    starvation: ms(Math.max(2000, bWait + 1000)),
    steps,
    variants: {
      unsafe: { description: `As recorded: ${what}`, expect: ['mutual-exclusion'] },
      fixed: { description: clock ? `Slew-only time: ${node} is ${SLEWED_MS} ms ahead, inside the drift allowance` : `Delayed restart: ${node} is back after A's lease`, expect: 'safe' },
    },
  });
}
