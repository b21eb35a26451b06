// The replay of a lost lease on a fenced lock (Redisson's RFencedLock: every grant carries a
// larger token). The work under such a lock is its writes to a storage that can check tokens, so
// the replay plays the work as writes: B takes the lock after A's lease ran out and writes, then
// A, still acting as holder, writes and releases (refused: the trace sees A's stale act there).
// Beside the recorded race: `fencing` (the storage rejects a token older than the newest it has
// seen; A's late write is refused, whoever holds the lock) and `longer-lease` (A's lease outlasts
// its work; B waits), and for work that ran long (no pause) a watchdog. A's pause, when the
// incident was one, is replayed as in the lost-lease plan.

import { acquire, act, ms, step, type Plan, type Step } from './incident-plan.js';
import type { Timeline } from './incident-scenario.js';

/** The lost-lease plan for a fenced lock: writes for the work, and fencing among the fixes. */
export function fencedLostLease(t: Timeline): Plan {
  const paused = t.incident.fault === 'pause';
  const actAt = t.afterLoss(t.incident.actAt, 80);
  const bAt = Math.min(t.afterLoss(t.b?.acquiredAt, 20), actAt - 60);
  const bEnd = Math.max(t.afterLoss(t.b?.endedAt, 0), actAt + 60);
  const steps: Step[] = [
    acquire(0, 'A', t.leaseOf(t.a), ['unsafe', 'fencing']),
    // A's lease outlasts its release: its pause or work, and the lease it started with.
    acquire(0, 'A', t.leaseOf(t.a, actAt + 10 + t.lease), 'longer-lease'),
    ...(paused ? [] : [acquire(0, 'A', { 'watchdog-lease': ms(t.lease) }, 'watchdog')]),
    ...(paused ? [act(t.pauseFrom, 'A', 'pause', { for: ms(actAt - t.pauseFrom - 10) })] : []),
    step(t.loss, { wait: { until: 'expired' } }, ['unsafe', 'fencing']),
    acquire(bAt, 'B', { ...t.leaseOf(t.b, bEnd - bAt + 300), wait: ms(actAt - bAt + 1000) }),
    act(bAt + 20, 'B', 'write', { value: 2 }),
    act(actAt, 'A', 'write', { value: 1 }),
    act(actAt + 10, 'A', 'release'),
    act(bEnd, 'B', 'release'),
  ];
  return {
    summary: "A's lease on a fenced lock ran out; B took the lock and wrote, then A's late write overwrote B's",
    narration: `${paused ? `A renewed its lease, then sent nothing for ${ms(actAt - t.pauseFrom)}: a pause (GC, SIGSTOP, a partition) longer than its ${ms(t.lease)} lease` : `A held a fixed ${ms(t.lease)} lease and worked past it`}. B took the lock with the next fencing token and wrote; A, still acting as its holder, wrote with its older token and released (refused). A storage that accepts every write keeps A's stale value; one that checks tokens rejects it.`,
    lookFor: [`A's lease running out at ${ms(t.loss)}`, "A's write with the older token after B's, accepted (unsafe) or rejected (fencing)"],
    clients: ['A', 'B'],
    steps,
    variants: {
      unsafe: { description: 'As recorded: the storage accepts every write', expect: ['stale-holder', 'stale-write'] },
      fencing: { description: 'The storage rejects a token older than the newest it has seen', expect: 'safe', resource: { fencing: 'strict' } },
      'longer-lease': { description: `A's lease outlasts its ${paused ? 'pause' : 'work'}; B waits for A's release`, expect: 'safe' },
      ...(paused ? {} : { watchdog: { description: "A's watchdog renews the lease while A works; B waits", expect: 'safe' } }),
    },
  };
}
