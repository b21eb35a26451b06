// The replay of a starvation incident (incident-starvation.ts), written beside its fix:
// - reader-stream: the recorded reads, played by up to three reader clients, overtake the waiting
//   writer W; the fix is writer preference (a reader that finds a writer waiting waits too).
// - hung-holder: A's worker hangs while its watchdog renews, and B waits; the fix bounds the
//   watchdog's renewals (max-renewals) and tells A its lock is gone (stop-on-lost).
// Times are ms since the first recorded hold, scaled down when the recording is long. The
// scenario's starvation bound lies halfway between the waiter's wait under the fix and its wait
// as recorded, so each variant is judged with a margin on both sides.

import type { Incident } from './incident.js';
import { acquire, act, ms, replayScale, step, type Plan, type Step } from './incident-plan.js';
import { holdsOf, MAX_READERS, type Hold } from './incident-starvation.js';

/** A replay about this long at most: the recorded wait, however long, scaled to it. */
const LONGEST_REPLAY_MS = 3000;
const SHORTEST_LEASE_MS = 100;
/** Renewals a bounded watchdog allows in the fix: its lease then runs out about 1.7 leases after the acquisition. */
const FIX_RENEWALS = 2;

/** The plan for a starvation incident; undefined for every other incident. */
export function starvationPlan(incident: Incident): Plan | undefined {
  if (incident.fault === 'reader-stream') return readerStream(incident);
  if (incident.fault === 'hung-holder') return hungHolder(incident);
  return undefined;
}

const round10 = (n: number) => Math.round(n / 10) * 10;

function readerStream(incident: Incident): Plan {
  const { finding, origin } = incident;
  const scale = Math.min(1, LONGEST_REPLAY_MS / Math.max(1, finding.to - origin));
  const at = (t: number) => round10((t - origin) * scale);
  const waiter = finding.owners[0];
  const reads = holdsOf(incident.events).filter((h) => h.owner !== waiter && h.from <= finding.to);
  const w = Math.max(20, at(finding.from));
  const got = at(finding.to);
  // Under the fix W gets the lock when the reads it found ended (readers arriving since wait).
  const found = Math.max(...reads.filter((h) => h.from <= finding.from).map((h) => at(h.to ?? finding.to)));
  const fixedWait = Math.max(0, found - w);
  const bound = Math.round((fixedWait + (got - w)) / 2);
  const readerSteps = castReaders(reads, at).flatMap(({ reader, from, to, leaseMs }) => [
    acquire(from, reader, { lease: ms(Math.max(leaseMs, to - from + 300)), wait: '2s' }, 'unsafe'),
    acquire(from, reader, { lease: ms(Math.max(leaseMs, to - from + 300)), wait: '2s', 'writer-preference': true }, 'writer-preference'),
    act(from + 10, reader, 'enter'),
    act(to - 10, reader, 'leave'),
    act(to, reader, 'release'),
  ]);
  const wEnd = Math.max(found, w) + 100;
  const steps: Step[] = [
    ...readerSteps,
    acquire(w, 'W', { lease: '1s', wait: ms(got - w + 2000) }, 'unsafe'),
    acquire(w, 'W', { lease: '1s', wait: ms(got - w + 2000), 'writer-preference': true }, 'writer-preference'),
    act(w + 10, 'W', 'enter'),
    act(wEnd - 10, 'W', 'leave'),
    act(wEnd, 'W', 'release'),
  ].sort((a, b) => Number.parseFloat(String(a.at)) - Number.parseFloat(String(b.at)));
  const readers = [...new Set(readerSteps.map((s) => String(s.client)))];
  return {
    summary: 'Readers that kept arriving held the read lock without a free moment, and the writer waited until they stopped',
    narration: `W asked for the write lock while the lock was in read mode and was refused; readers that came after it were let in whenever the lock was in read mode, so it was never free, and W waited ${ms(got - w)}. The fix is writer preference: a reader that finds a writer waiting waits too, and W gets the lock when the reads it found end, after about ${ms(fixedWait)}.`,
    lookFor: [`W waiting from ${ms(w)} while the reads overlap`, 'W getting the lock when the reads it found end (writer-preference)'],
    clients: [...readers.map((name) => ({ name, kind: 'read' })), { name: 'W', kind: 'write' }],
    steps,
    variants: {
      unsafe: { description: 'As recorded: readers join the read mode whoever waits', expect: ['starvation'] },
      'writer-preference': { description: 'Readers wait while a writer is waiting', expect: 'safe' },
    },
    starvation: ms(bound),
  };
}

/** The recorded reads on at most MAX_READERS reader clients: each read goes to a reader free by then (one that is not is left out). */
function castReaders(reads: readonly Hold[], at: (t: number) => number): { reader: string; from: number; to: number; leaseMs: number }[] {
  const freeAt = new Array<number>(MAX_READERS).fill(Number.NEGATIVE_INFINITY);
  const cast: { reader: string; from: number; to: number; leaseMs: number }[] = [];
  for (const r of reads) {
    const from = Math.max(0, at(r.from));
    const to = Math.max(from + 60, at(r.to ?? r.from + (r.leaseMs ?? 1000)));
    const slot = freeAt.findIndex((t) => t + 20 <= from);
    if (slot < 0) continue;
    freeAt[slot] = to;
    cast.push({ reader: `R${slot + 1}`, from, to, leaseMs: r.leaseMs ?? 1000 });
  }
  return cast;
}

function hungHolder(incident: Incident): Plan {
  const { finding, origin } = incident;
  const [a] = incident.actors;
  const recordedLease = a?.leaseMs ?? 1000;
  const scale = replayScale(recordedLease);
  const at = (t: number) => round10((t - origin) * scale);
  const lease = Math.max(SHORTEST_LEASE_MS, round10(recordedLease * scale));
  const bAt = Math.max(Math.round(lease / 2), at(finding.from));
  const aEnd = Math.max(at(finding.to), bAt + 5 * lease);
  // Under the fix A's lease runs out FIX_RENEWALS renewal periods (a third of a lease each) and a lease after it took the lock.
  const fixedWait = Math.max(0, Math.round((FIX_RENEWALS * lease) / 3 + lease) - bAt);
  const bound = Math.round((fixedWait + lease + (aEnd - bAt)) / 2);
  return {
    summary: "A's worker hung while its watchdog kept renewing the lock, and B waited until A came back",
    narration: `A held the lock with a ${ms(lease)} watchdog lease and did nothing on it but renew, while B was refused for ${ms(aEnd - bAt)}: a worker that hangs while its process lives keeps the lock, because the watchdog only checks that the process is alive. The fix bounds the watchdog: after ${FIX_RENEWALS} renewals it stops, A's lease runs out, B gets the lock, and A (told its lock is gone) does not act as its holder when its worker comes back.`,
    lookFor: [`A's lane renewing every ${ms(lease / 3)} while B waits from ${ms(bAt)}`, `bounded-watchdog: A's renewals stopping after ${FIX_RENEWALS}, B getting the lock`],
    clients: [{ name: 'A', 'stop-on-lost': true }, 'B'],
    steps: [
      acquire(0, 'A', { 'watchdog-lease': ms(lease) }, 'unsafe'),
      acquire(0, 'A', { 'watchdog-lease': ms(lease), 'max-renewals': FIX_RENEWALS }, 'bounded-watchdog'),
      step(20, { note: "A's worker hangs; its watchdog renews" }),
      acquire(bAt, 'B', { lease: ms(Math.max(1000, lease)), wait: ms(aEnd - bAt + 1000) }),
      act(bAt + 10, 'B', 'enter'),
      act(aEnd, 'A', 'release'),
      act(aEnd + 90, 'B', 'leave'),
      act(aEnd + 100, 'B', 'release'),
    ],
    variants: {
      unsafe: { description: "As recorded: A's watchdog renews for as long as A's process lives", expect: ['starvation'] },
      'bounded-watchdog': { description: `The watchdog stops after ${FIX_RENEWALS} renewals; A learns its lock is gone`, expect: 'safe' },
    },
    starvation: ms(bound),
    // A renewal late by less than two thirds of the lease still keeps it, and the bound lies a
    // few hundred ms from either wait: a third of the lease is half the narrowest margin.
    tolerance: ms(Math.max(30, Math.round(lease / 3))),
  };
}
