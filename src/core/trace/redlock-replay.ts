// What every Redlock replay shares (redlock-scenario.ts's overlaps, redlock-lost-validity.ts's
// stale holders): two owners become clients A and B, each reaching the nodes it took, on a sandbox
// of independent primaries; the plan around them is each fault's own.

import type { Finding } from './checker.js';
import { traceTime } from './format.js';
import { scaledNote, type Plan } from './incident-plan.js';
import type { ScenarioSpec } from './incident-scenario.js';

/** An owner of the finding as the replay casts it. */
export interface RedlockActor {
  readonly owner: string;
  readonly seenAs: string;
  /** Comparable ms of its first vote (quorum.ts's common scale of the nodes), and its lease. */
  readonly at: number;
  readonly leaseMs: number;
  /** The scenario's names of the nodes it took (n1, n2, ...). */
  readonly nodes: readonly string[];
}

/** A Redlock plan: what it replays (`overlap`, ...), and a plan's words, steps and variants. */
export type RedlockPlan = Omit<Plan, 'clients' | 'seed' | 'tolerance' | 'starvation'> & { readonly what: string; readonly starvation: string };

/** The scenario for `plan` on `count` primaries, A and B reaching their nodes; `scale` as the plan shortened the recording. */
export function redlockSpec(a: RedlockActor, b: RedlockActor, count: number, finding: Finding, source: string, scale: number, plan: RedlockPlan): ScenarioSpec {
  return {
    title: `Replay of a Redlock ${plan.what} on ${finding.lock} at ${traceTime(finding.from)}`,
    summary: plan.summary,
    narration: `${plan.narration}\n\nWritten by redlock-cli trace --scenario from ${source}: ${finding.message}${scaledNote(scale)}`,
    sources: [`trace recording ${source}`],
    'look-for': plan.lookFor,
    sandbox: { topology: 'redlock', nodes: count, ...plan.sandbox },
    lock: { kind: 'redlock', key: finding.lock },
    clients: [
      { name: 'A', reach: a.nodes },
      { name: 'B', reach: b.nodes },
    ],
    starvation: plan.starvation,
    settle: '300ms',
    steps: plan.steps,
    variants: plan.variants,
  };
}
