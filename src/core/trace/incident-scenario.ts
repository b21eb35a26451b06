// An incident (incident.ts) written as a scenario file's data, in the YAML surface of
// scenarios/README.md: an `unsafe` variant that replays the interleaving the trace saw, and the
// fixes that apply to its fault, side by side. Times are ms since A's acquisition, kept relative
// to the loss (the lease's end in the replay, which its own lease and renewals decide), and
// scaled down when the leases are long, so a 30 s lease replays in about a second.

import { traceTime } from './format.js';
import { acquire, act, inside, ms, replayScale, scaledNote, step, type Plan, type Step } from './incident-plan.js';
import { fencedLostLease } from './incident-scenario-fenced.js';
import { starvationPlan } from './incident-scenario-starvation.js';
import type { Incident, IncidentActor } from './incident.js';
import { stuckPlan } from './incident-stuck-scenario.js';

/** A scenario file's data, key for key as in YAML (kebab-case, durations as text). */
export type ScenarioSpec = Readonly<Record<string, unknown>>;

const SHORTEST_LEASE_MS = 100;

/** `1370ms` or `4s` (the two spellings this file writes) in ms. */
const durationMs = (text: string) => (text.endsWith('ms') ? Number.parseFloat(text) : Number.parseFloat(text) * 1000);

/** The scenario that replays `incident`; `source` names the recording in the narration. */
export function incidentScenario(incident: Incident, source: string): ScenarioSpec {
  const t = incident.stuck ? undefined : new Timeline(incident);
  // A lost lease on a fenced lock: the work is its writes, and the storage checking tokens is a fix.
  const plan = incident.stuck ? stuckPlan(incident, incident.stuck) : (starvationPlan(incident) ?? lockPlan(incident, t!));
  const scale = t?.scale ?? 1;
  const waits = plan.steps.flatMap((s) => (typeof s.wait === 'string' ? [durationMs(s.wait)] : []));
  const f = incident.finding;
  return {
    title: `Replay of ${f.kind} on ${incident.lock} at ${traceTime(f.from)}`,
    summary: plan.summary,
    narration: `${plan.narration}\n\nAs recorded: ${incident.actors.map(castLine).join('; ')}.\n\nWritten by redlock-cli trace --scenario from ${source}, ${f.unsafe ? 'unsafe' : 'liveness'} finding ${incident.number} (${f.kind}): ${f.message}${scaledNote(scale)}`,
    sources: [`trace recording ${source}`],
    'look-for': plan.lookFor,
    sandbox: plan.sandbox ?? { topology: 'single' },
    lock: { kind: incident.family, key: incident.lock },
    clients: plan.clients,
    ...(plan.seed ? { seed: plan.seed } : {}),
    // A client's longest wait is the fix working (it waits for the holder), not starvation: a second beyond it.
    starvation: plan.starvation ?? ms(Math.max(2000, ...waits.map((w) => w + 1000))),
    ...(plan.tolerance ? { tolerance: plan.tolerance } : {}),
    settle: '300ms',
    steps: plan.steps,
    variants: plan.variants,
  };
}

type PlanName = 'lost-lease' | 'unchecked-release' | 'foreign-delete' | 'clock-step' | 'failover' | 'reset';

/** The replay's shape: by the fault, and for a lost lease by what its owner did afterwards. */
function planOf(incident: Incident): PlanName {
  if (incident.fault === 'failover' || incident.fault === 'foreign-delete' || incident.fault === 'clock-step') return incident.fault;
  if (incident.act === 'reset') return 'reset';
  return incident.act === 'delete' ? 'unchecked-release' : 'lost-lease';
}

/** `A (worker-a): a 300ms lease renewed every 100ms`: who an actor was, its lease and renewal cadence as recorded. */
function castLine(x: IncidentActor): string {
  if (x.owner === undefined) return `${x.name} (${x.seenAs}): never held the lock`;
  const lease = x.leaseMs === undefined ? 'no lease' : `a ${ms(x.leaseMs)} lease`;
  const renewals = x.renewEveryMs !== undefined ? ` renewed every ${ms(x.renewEveryMs)}` : x.renews ? ', which it tried to renew' : ', never renewed';
  return `${x.name} (${x.seenAs}): ${lease}${renewals}`;
}

function lockPlan(incident: Incident, t: Timeline): Plan {
  const name = planOf(incident);
  return name === 'lost-lease' && incident.family === 'fenced' ? fencedLostLease(t) : PLANS[name](t);
}

/** Recorded server times as scenario ms; each actor's lease and acquire options. */
export class Timeline {
  readonly scale: number;
  readonly a: IncidentActor;
  readonly b: IncidentActor | undefined;
  readonly c: IncidentActor | undefined;
  /** A's lease in the replay (its watchdog's lease when it renewed). */
  readonly lease: number;
  readonly watchdog: boolean;
  /** When A's lease runs out in the replay. */
  readonly loss: number;
  /** Where A's pause starts, for a pause: just after a renewal, half a renewal period later. */
  readonly pauseFrom: number;

  constructor(readonly incident: Incident) {
    const holders = incident.actors.filter((x) => x.owner !== undefined);
    // A's lease sets the pace: the race is about it, and the others' keep their proportion to it.
    this.scale = replayScale(holders[0]?.leaseMs ?? 0);
    [this.a, this.b, this.c] = [holders[0]!, holders[1], holders[2]];
    this.watchdog = this.a.renews;
    this.lease = this.dur(this.a.leaseMs ?? 1000);
    const period = this.lease / 3;
    const silent = this.at(incident.silentFrom ?? incident.origin);
    const k = Math.max(1, Math.round(silent / period));
    this.pauseFrom = this.watchdog ? Math.round(k * period + period / 2) : 20;
    this.loss = incident.fault === 'pause' && this.watchdog ? Math.round(k * period + this.lease) : this.lease;
  }

  /** Scenario ms of a recorded server time. */
  at(serverMs: number): number {
    return Math.round(((serverMs - this.incident.origin) * this.scale) / 10) * 10;
  }
  dur(n: number): number {
    return Math.max(SHORTEST_LEASE_MS, Math.round((n * this.scale) / 10) * 10);
  }
  /** A recorded time as scenario ms after the replay's loss, keeping its distance from the recorded loss (at least `min` after it). */
  afterLoss(serverMs: number | undefined, min: number): number {
    const recorded = serverMs === undefined ? min : this.at(serverMs) - this.at(this.incident.lossAt);
    return this.loss + Math.max(min, recorded);
  }
  /** `lease: 300ms`, or `watchdog-lease: 300ms` when the actor renewed. */
  leaseOf(actor: IncidentActor | undefined, atLeast = 0): Step {
    const lease = ms(Math.max(this.dur(actor?.leaseMs ?? 1000), atLeast));
    return actor?.renews ? { 'watchdog-lease': lease } : { lease };
  }
}

const who = (x: IncidentActor | undefined, name: string) => (x ? `${name} (${x.seenAs} in the trace)` : name);

/** The fixed variant's name and A's acquire there, for a lease that ran out under its holder. */
function longerLease(t: Timeline, holdUntil: number): Step {
  return t.leaseOf(t.a, holdUntil + t.lease);
}

const PLANS: Record<PlanName, (t: Timeline) => Plan> = {
  /** A lost its lease (expired while it worked, or while paused) and acted as holder later: refused. */
  'lost-lease': (t) => {
    const paused = t.incident.fault === 'pause';
    const actAt = t.afterLoss(t.incident.actAt, 60);
    const bAt = Math.min(t.afterLoss(t.b?.acquiredAt, 20), actAt - 30);
    const bEnd = Math.max(t.afterLoss(t.b?.endedAt, 0), bAt + 60);
    const bWait = Math.max(1000, actAt - bAt + 1000);
    const steps: Step[] = [
      acquire(0, 'A', t.leaseOf(t.a), 'unsafe'),
      acquire(0, 'A', longerLease(t, actAt), 'longer-lease'),
      ...(paused ? [] : [acquire(0, 'A', { 'watchdog-lease': ms(t.lease) }, 'watchdog')]),
      act(10, 'A', 'enter'),
      ...(paused ? [act(t.pauseFrom, 'A', 'pause', { for: ms(actAt - t.pauseFrom - 10) })] : []),
      step(t.loss, { wait: { until: 'expired' } }, 'unsafe'),
      acquire(bAt, 'B', { ...t.leaseOf(t.b, bEnd - bAt + 300), wait: ms(bWait) }),
      act(bAt + 10, 'B', 'enter'),
      act(actAt, 'A', 'leave'),
      act(actAt, 'A', 'release'),
      act(bEnd, 'B', 'leave'),
      act(bEnd, 'B', 'release'),
    ];
    const why = paused ? `A renewed its lease, then sent nothing for ${ms(actAt - t.pauseFrom)}: a pause (GC, SIGSTOP, a partition) longer than its ${ms(t.lease)} lease` : `A held a fixed ${ms(t.lease)} lease and worked past it`;
    return {
      summary: paused ? "A's holder paused longer than its lease, and B took the lock while A still worked" : "A's lease ran out before it released, and B took the lock while A still worked",
      narration: `${why}. The lease ran out, ${who(t.b, 'B')} took the lock, and ${who(t.a, 'A')} came back acting as its holder: its ${t.incident.act === 'renew' ? 'renewal' : 'release'} was refused, and both were inside meanwhile.`,
      lookFor: [`A's lease running out at ${ms(t.loss)}`, `B entering while A is still inside`],
      clients: ['A', 'B'],
      steps,
      variants: {
        unsafe: { description: 'As recorded: the lease runs out under A', expect: ['mutual-exclusion'] },
        'longer-lease': { description: `A's lease outlasts its ${paused ? 'pause' : 'work'}; B waits for A's release`, expect: 'safe' },
        ...(paused ? {} : { watchdog: { description: "A's watchdog renews the lease while A works; B waits", expect: 'safe' } }),
      },
    };
  },

  /** A lost its lease, then released with a plain DEL, deleting B's lock; C took it while B was inside. */
  'unchecked-release': (t) => {
    const paused = t.incident.fault === 'pause';
    const delAt = t.afterLoss(t.incident.actAt, 60);
    const bAt = Math.min(t.afterLoss(t.b?.acquiredAt, 20), delAt - 30);
    const cAt = Math.max(t.afterLoss(t.c?.acquiredAt, 0), delAt + 30);
    // B and C overlap by a margin a busy machine cannot close (a slow reply delays an enter, not a leave).
    const bEnd = Math.max(t.afterLoss(t.b?.endedAt, 0), cAt + 250);
    const cEnd = Math.max(t.afterLoss(t.c?.endedAt, 0), bEnd + 150);
    const steps: Step[] = [
      acquire(0, 'A', t.leaseOf(t.a), ['unsafe', 'owner-checked-release']),
      acquire(0, 'A', longerLease(t, delAt), 'longer-lease'),
      ...(paused ? [act(t.pauseFrom, 'A', 'pause', { for: ms(delAt - t.pauseFrom - 10) })] : []),
      step(t.loss, { wait: { until: 'expired' } }, ['unsafe', 'owner-checked-release']),
      acquire(bAt, 'B', { ...t.leaseOf(t.b, bEnd - bAt + 300), wait: ms(delAt - bAt + 1000) }),
      act(delAt, 'A', 'release', { mode: 'naive-del' }, ['unsafe', 'longer-lease']),
      act(delAt, 'A', 'release', {}, 'owner-checked-release'),
      acquire(cAt, 'C', { ...t.leaseOf(t.c, cEnd - cAt + 300), wait: ms(bEnd - cAt + 1000) }),
      ...inside('B', bAt + 10, bEnd),
      ...inside('C', cAt + 10, cEnd),
    ];
    return {
      summary: "A's lease ran out; its plain DEL deleted B's lock and C took it while B was inside",
      narration: `${who(t.a, 'A')} ${paused ? 'stopped renewing (a pause longer than its lease)' : `held a fixed ${ms(t.lease)} lease and released late`}. ${who(t.b, 'B')} took the lock after A's lease ran out; A's release was a plain DEL, which deleted B's lock, and ${who(t.c, 'C')} took it while B was still inside.`,
      lookFor: ["A's release deleting B's lock", 'C entering while B is inside'],
      clients: ['A', 'B', 'C'],
      steps,
      variants: {
        unsafe: { description: 'As recorded: A releases with a plain DEL', expect: ['mutual-exclusion'] },
        'owner-checked-release': { description: 'The release checks the owner and deletes only its own lock', expect: 'safe' },
        'longer-lease': { description: "A's lease outlasts its work; its DEL removes its own lock", expect: 'safe' },
      },
    };
  },

  /** Someone who never held the lock deleted it under A; B took it while A was inside. */
  'foreign-delete': (t) => {
    const delAt = Math.max(30, t.at(t.incident.actAt));
    const bAt = Math.max(t.b?.acquiredAt !== undefined ? t.at(t.b.acquiredAt) : 0, delAt + 20);
    const aEnd = Math.max(t.a.endedAt !== undefined ? t.at(t.a.endedAt) : 0, bAt + 100);
    const bEnd = Math.max(t.b?.endedAt !== undefined ? t.at(t.b.endedAt) : 0, aEnd + 100);
    const deleter = t.incident.actors.find((x) => x.owner === undefined);
    return {
      summary: "A client that never held the lock deleted it, and B took it while A was inside",
      narration: `${who(t.a, 'A')} held the lock when ${who(deleter, 'D')}, which never held it, deleted it with a plain DEL. ${who(t.b, 'B')} then took it while A was still inside.`,
      lookFor: ["D's DEL of A's lock", 'B entering while A is inside'],
      clients: ['A', 'B', 'D'],
      steps: [
        acquire(0, 'A', t.leaseOf(t.a, aEnd + 300)),
        act(delAt, 'D', 'release', { mode: 'naive-del' }, 'unsafe'),
        act(delAt, 'D', 'release', {}, 'owner-checked-release'),
        acquire(bAt, 'B', { ...t.leaseOf(t.b, bEnd - bAt + 300), wait: ms(aEnd - bAt + 1000) }),
        ...inside('A', 10, aEnd),
        ...inside('B', bAt + 10, bEnd),
      ],
      variants: {
        unsafe: { description: 'As recorded: D deletes with a plain DEL', expect: ['mutual-exclusion'] },
        'owner-checked-release': { description: "D's release checks the owner: it holds nothing and deletes nothing", expect: 'safe' },
      },
    };
  },

  /** A's lease ran out early on the server (its clock stepped forward); B took the lock while A was inside. */
  'clock-step': (t) => {
    const jumpAt = Math.max(30, Math.min(t.at(t.incident.lossAt) - 30, t.lease - 60));
    const bAt = Math.max(t.b?.acquiredAt !== undefined ? t.at(t.b.acquiredAt) : 0, jumpAt + 40);
    const actAt = Math.max(t.at(t.incident.actAt), bAt + 60);
    const bEnd = Math.max(t.b?.endedAt !== undefined ? t.at(t.b.endedAt) : 0, actAt + 60);
    const jump = Math.ceil(((t.incident.aheadMs ?? 0) * t.scale + t.lease) / 1000);
    return {
      summary: "The server's clock jumped forward, A's key expired early, and B took the lock while A was inside",
      narration: `${who(t.a, 'A')}'s key was gone ${ms((t.incident.aheadMs ?? 0) * t.scale)} before its ${ms(t.lease)} lease could have run out, and nothing deleted it: the server's clock stepped forward. ${who(t.b, 'B')} took the lock while A was still inside.`,
      lookFor: ["n1's clock jump", 'B entering while A is inside'],
      sandbox: { topology: 'single', 'fake-clock': true },
      clients: ['A', 'B'],
      steps: [
        acquire(0, 'A', t.leaseOf(t.a, actAt + 300)),
        step(jumpAt, { fault: 'clock', node: 'n1', value: `+${jump}s` }, 'unsafe'),
        step(jumpAt, { fault: 'clock', node: 'n1', value: '+10ms' }, 'slew-only'),
        acquire(bAt, 'B', { ...t.leaseOf(t.b, bEnd - bAt + 300), wait: ms(actAt - bAt + 1000) }),
        ...inside('A', 10, actAt),
        ...inside('B', bAt + 10, bEnd),
      ],
      variants: {
        unsafe: { description: `n1's clock jumps ${jump} s forward; A's key expires at once`, expect: ['mutual-exclusion'] },
        'slew-only': { description: "Slew-only time: n1's clock moves 10 ms; A keeps its lease", expect: 'safe' },
      },
    };
  },

  /** A's lock was not replicated before its primary failed; B took it on the promoted replica. */
  failover: (t) => ({
    summary: "The primary failed before replicating A's lock, and B took it on the promoted replica",
    narration: `${who(t.a, 'A')} held the lock on the primary when it failed over; the promoted replica did not have it and ${who(t.b, 'B')} took it. The replay stalls replication, then fails the primary over on a Sentinel sandbox (its timing is Sentinel's, not the recording's).`,
    lookFor: ["the failover", 'B entering while A is inside'],
    sandbox: { topology: 'sentinel' },
    clients: ['A', 'B'],
    // A stays inside 6 s and B waits as long: on a busy machine Sentinel's election can take
    // seconds, and B must still get in while A is inside for the race to show.
    steps: [
      step(0, { fault: 'stall-replication', node: 'replicas', for: '700ms' }),
      acquire(100, 'A', { lease: '10s' }, 'unsafe'),
      acquire(100, 'A', { lease: '10s', 'wait-replicas': 1 }, 'wait-replicas'),
      step(450, { fault: 'failover' }),
      acquire(550, 'B', { lease: '10s', wait: '6s' }),
      ...inside('A', 150, 6000),
      ...inside('B', 560, 6100),
    ],
    variants: {
      unsafe: { description: 'As recorded: the acquire returns as soon as the primary has the lock', expect: ['mutual-exclusion'] },
      'wait-replicas': { description: 'The acquire waits for one replica (WAIT 1) and fails without it', expect: 'safe' },
    },
  }),

  /** A's lease ran out while it was stalled; its late refresh SET the lock again over B's turn. */
  reset: (t) => {
    const actAt = t.afterLoss(t.incident.actAt, 150);
    const bAt = Math.min(t.afterLoss(t.b?.acquiredAt, 20), actAt - 100);
    const bEnd = Math.min(Math.max(t.afterLoss(t.b?.endedAt, 0), bAt + 70), actAt - 20);
    const lease = ms(t.lease);
    return {
      summary: "A's late refresh SET the expired lock again and hid that B had it meanwhile",
      narration: `${who(t.a, 'A')} held a ${lease} lease and stalled; its refresh came after the lease ran out and ${who(t.b, 'B')} had taken the lock. The refresh SET the lock again without checking, so A went on with a read it made before B's write.`,
      lookFor: ["A's refresh after its lease ran out", "A's write over B's"],
      clients: ['A', 'B'],
      steps: [
        acquire(0, 'A', { lease }, 'unsafe'),
        acquire(0, 'A', { lease, 'stop-on-lost': true }, 'compare-and-extend'),
        act(20, 'A', 'incr', { gap: ms(actAt + 30 - 20) }),
        act(40, 'A', 'pause', { for: ms(actAt - 40) }),
        act(50, 'A', 'renew', { mode: 'reset', lease, background: true }, 'unsafe'),
        act(50, 'A', 'renew', { lease, background: true }, 'compare-and-extend'),
        step(t.lease, { wait: { until: 'expired' } }),
        acquire(bAt, 'B', { ...t.leaseOf(t.b, bEnd - bAt + 300), wait: '150ms' }),
        act(bAt + 10, 'B', 'enter'),
        act(bAt + 20, 'B', 'incr'),
        act(bEnd, 'B', 'leave'),
        act(bEnd, 'B', 'release'),
        act(actAt + 100, 'A', 'release'),
      ],
      variants: {
        unsafe: { description: "As recorded: the refresh SETs A's token again, whoever holds the lock", expect: ['lost-update'] },
        'compare-and-extend': { description: 'The refresh is compare-and-extend; it fails and A abandons its write', expect: 'safe' },
      },
    };
  },
};
