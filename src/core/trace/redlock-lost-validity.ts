// A Redlock owner that acted as holder on a majority of nodes after its validity ended (quorum.ts:
// expired-while-held, or the overlap of its stale window with another majority), as a scenario.
// The servers show A's SETs, their expiry, B's majority and A's refused releases; between its SETs
// and its release A sent nothing for longer than its lease. A freeze anywhere in that time explains
// it; the replay puts it where it starts earliest, during the acquisition (A frozen after sending
// its SETs, before reading the replies, the nodes slowed so the replies are still in flight), so
// that both fixes are judged: Redlock's validity check after the replies (A gives up), and a lease
// that outlasts the freeze (B waits for A's release). Times are ms since the run's start, A's
// recorded offsets from its first vote kept and scaled to a lease of at most a second.

import type { Finding } from './checker.js';
import type { ScenarioSpec } from './incident-scenario.js';
import { ms, replayScale } from './incident-plan.js';
import { redlockSpec, type RedlockActor } from './redlock-replay.js';

/** The replay's slowed nodes: A's replies are still in flight when its freeze starts 10 ms after the SETs. */
const LATENCY_MS = 300;
const ACQUIRE_AT = 100;
const HEAL_AT = ACQUIRE_AT + LATENCY_MS + 100;
/** When A's keys are set in the replay, at the latest (the SETs cross one slowed link). */
const VOTES_AT = ACQUIRE_AT + LATENCY_MS;

/**
 * The scenario for `a`'s stale window: B (`b`) took a majority after A's keys ran out, and A
 * released (refused) at `actAt`, all comparable ms as recorded.
 */
export function lostValidityPlan(a: RedlockActor, b: RedlockActor, actAt: number, count: number, finding: Finding, source: string): ScenarioSpec {
  const scale = replayScale(a.leaseMs);
  const after = (t: number) => VOTES_AT + Math.round((t - a.at) * scale);
  const lease = Math.round(a.leaseMs * scale);
  const expired = Math.max(HEAL_AT + 50, VOTES_AT + lease + 50);
  const bAt = Math.max(after(b.at), expired + 100);
  // A wakes and releases once B is inside, as recorded: a busy machine only makes B's reply later.
  const aAct = Math.max(after(actAt), bAt + 250);
  const bLeave = aAct + 300;
  const bLease = Math.max(Math.round(b.leaseMs * scale), 2 * (bLeave - bAt));
  // longer-lease: B waits for A's release, then for its own work.
  const bWait = aAct - bAt + 1000;
  const outlasting = aAct - ACQUIRE_AT + lease;
  const steps: Record<string, unknown>[] = [
    ...a.nodes.map((node) => ({ at: '0ms', fault: 'latency', node, value: ms(LATENCY_MS) })),
    { at: ms(ACQUIRE_AT), client: 'A', do: 'acquire', lease: ms(lease), 'check-validity': false, only: 'unsafe' },
    { at: ms(ACQUIRE_AT), client: 'A', do: 'acquire', lease: ms(lease), only: 'validity-check' },
    { at: ms(ACQUIRE_AT), client: 'A', do: 'acquire', lease: ms(outlasting), only: 'longer-lease' },
    { at: ms(ACQUIRE_AT + 10), client: 'A', do: 'pause', for: ms(aAct - ACQUIRE_AT - 20) },
    { at: ms(ACQUIRE_AT + 20), client: 'A', do: 'enter' },
    ...a.nodes.map((node) => ({ at: ms(HEAL_AT), fault: 'heal', node })),
    { at: ms(expired), wait: { until: 'expired' }, only: ['unsafe', 'validity-check'] },
    { at: ms(bAt), client: 'B', do: 'acquire', lease: ms(bLease), wait: ms(bWait) },
    { at: ms(bAt + 50), client: 'B', do: 'enter' },
    { at: ms(aAct), client: 'A', do: 'leave' },
    // A Redlock client releases after its work; one that gave up has already deleted what was left.
    { at: ms(aAct), client: 'A', do: 'release', only: ['unsafe', 'longer-lease'] },
    { at: ms(bLeave), client: 'B', do: 'leave' },
    { at: ms(bLeave), client: 'B', do: 'release' },
  ];
  return redlockSpec(a, b, count, finding, source, scale, {
    what: 'holder past its validity',
    summary: "A freezes while it acquires; its keys run out, B takes a majority, and A works on a lock it no longer has",
    narration:
      `${count} independent Redis primaries. A (${a.seenAs} in the trace) took ${a.nodes.join(', ')} with a ${ms(lease)} lease, then sent nothing until its release, ` +
      `${ms((actAt - a.at) * scale)} after its first vote; its keys ran out, and B (${b.seenAs} in the trace) took ${b.nodes.join(', ')}. A's release was refused on a majority: it had worked while B was inside.\n\n` +
      `The trace cannot see where A stopped; the replay freezes A during its acquisition (after its SETs, before the replies, the nodes ${ms(LATENCY_MS)} away), where both fixes apply. ` +
      `validity-check: A measures lease - elapsed - drift after the replies, finds it negative and gives up. longer-lease: the lease outlasts the freeze and B waits for A's release. ` +
      `A freeze after a successful check needs fencing, which Redlock does not give.`,
    lookFor: [`A frozen from ${ms(ACQUIRE_AT + 10)} to ${ms(aAct - 10)}`, `B taking ${b.nodes.join(', ')} at ${ms(bAt)} while A is inside (unsafe)`, 'A giving up after its replies (validity-check)', "B waiting for A's release (longer-lease)"],
    starvation: ms(Math.max(3000, bWait + 1000)),
    steps,
    variants: {
      unsafe: { description: 'As recorded: A trusts its majority however long the acquisition took', expect: ['mutual-exclusion', 'stale-holder'] },
      'validity-check': { description: 'A measures its validity after the replies, finds it negative and gives up', expect: 'safe' },
      'longer-lease': { description: "A's lease outlasts its freeze; B waits for A's release", expect: 'safe' },
    },
  });
}
