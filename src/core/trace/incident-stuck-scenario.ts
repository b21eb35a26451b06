// A deadlock incident (incident-stuck.ts) as a scenario plan: the stuck lock replayed with the
// recorded lease, hold count or queue allowance, and the fix the runner judges beside it. The
// timing of each plan is the replay's own (the waiter waits longer than the scenario's starvation
// bound only where the lock is stuck), so it holds on a busy machine; what is recorded goes in.

import type { StuckFacts } from './incident-stuck.js';
import type { Incident, IncidentActor } from './incident.js';
import { ms, type Plan, type Step } from './incident-plan.js';

const clamp = (n: number | undefined, fallback: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round((n ?? fallback) / 10) * 10));
const step = (at: number, fields: Step, only?: string): Step => ({ at: ms(at), ...fields, ...(only ? { only } : {}) });
const act = (at: number, client: string, what: string, options: Step = {}, only?: string) => step(at, { client, do: what, ...options }, only);
const who = (x: IncidentActor | undefined, name: string) => (x ? `${name} (${x.seenAs} in the trace)` : name);
/** A waiter's turn once it has the lock: in, out, release. */
const turn = (client: string, at: number): Step[] => [act(at, client, 'enter'), act(at + 50, client, 'leave'), act(at + 50, client, 'release')];

/** The plan that replays a deadlock, by the server's fact that showed it stuck. */
export function stuckPlan(incident: Incident, stuck: StuckFacts): Plan {
  return PLANS[stuck.why](stuck, incident);
}

const PLANS: Record<StuckFacts['why'], (s: StuckFacts, incident: Incident) => Plan> = {
  /** The lock is named after a key that holds application data: nobody ever gets it. */
  'data-key': (s, incident) => ({
    summary: 'The lock is named after a key that holds application data, so nobody ever gets it',
    narration: `A plain SET wrote ${incident.lock} as data, and the lock asks for the same key with SET NX: the key always exists, so ${who(s.waiter, 'A')}${s.third ? ` and ${who(s.third, 'B')}` : ''} were refused although nobody held the lock. The replay seeds the key with a stand-in value (the recording keeps no data); the fix gives the lock a key of its own, lock:${incident.lock}.`,
    lookFor: ['A and B each waiting 1.5 s and giving up (unsafe)', `A holding lock:${incident.lock}, B getting it after A's release (own-key)`],
    seed: [{ string: incident.lock, value: 'application data (a stand-in: the recording keeps no values)' }],
    clients: ['A', 'B'],
    starvation: '1000ms',
    steps: [
      act(0, 'A', 'acquire', { lease: '1000ms', wait: '1500ms' }),
      act(50, 'A', 'enter'),
      act(100, 'B', 'acquire', { lease: '1000ms', wait: '1500ms' }),
      act(250, 'A', 'leave'),
      act(300, 'A', 'release'),
      ...turn('B', 750),
    ],
    variants: {
      unsafe: { description: `As recorded: the lock is named ${incident.lock}, the key that holds the data`, expect: ['deadlock'] },
      'own-key': { description: `The lock has a key of its own, lock:${incident.lock}`, expect: 'safe', lock: { key: `lock:${incident.lock}` } },
    },
  }),

  /** A token lock taken without TTL by a holder that then died: nobody can ever take it. */
  'no-ttl': (s) => ({
    summary: 'A took the lock without a TTL and died; B waits for a lock nobody will ever release',
    narration: `${who(s.holder, 'A')} set the lock with no TTL and sent nothing more: it died holding it (a crash between SETNX and EXPIRE, or a SET without PX). ${who(s.waiter, 'B')} was refused for as long as it waited. The replay takes the lock with SETNX, crashes A before its EXPIRE, and B waits 2 s; the fix sets the lock and its lease in one SET NX PX, so the lock expires after A's crash.`,
    lookFor: ["A's key with no TTL after its crash", 'B waiting 2 s and giving up (unsafe), B getting the lock when A\'s lease runs out (atomic-set)'],
    clients: ['A', 'B'],
    starvation: '1500ms',
    steps: [
      act(0, 'A', 'acquire', { lease: '1000ms', mode: 'setnx-then-expire', gap: '400ms' }, 'unsafe'),
      act(0, 'A', 'acquire', { lease: '1000ms' }, 'atomic-set'),
      act(100, 'A', 'crash'),
      act(200, 'B', 'acquire', { lease: '1000ms', wait: '2000ms' }),
      ...turn('B', 250),
    ],
    variants: {
      unsafe: { description: 'As recorded: the lock is set without a TTL and its holder dies', expect: ['deadlock'] },
      'atomic-set': { description: 'SET NX PX: the lock and its lease in one command; it expires after the crash', expect: 'safe' },
    },
  }),

  /** A reentrant lock taken more times than released: the watchdog keeps it for a holder that believes it free. */
  'count-left': (s) => {
    const lease = clamp(s.holder?.leaseMs, 900, 300, 1500);
    const extra = Math.max(1, Math.min(3, (s.holds ?? 2) - 1));
    const extraReleases = Math.max(1, Math.min(extra, s.countLeft ?? 1));
    return {
      summary: "A's hold count stayed above 0 after its last release, and its watchdog kept the lock from B",
      narration: `${who(s.holder, 'A')} took the reentrant lock ${extra + 1} times (its count reached ${s.holds ?? 2}) and released it once: its count stayed at ${s.countLeft ?? 1}, and its watchdog went on renewing a lock its code believed free. ${who(s.waiter, 'B')} was refused as long as it waited. The fix gives back every hold (or takes it once: never resend an acquire).`,
      lookFor: ["A's release at 0.3 s leaving the hold count above 0", 'B waiting 1.8 s and giving up (unsafe), B getting the lock at once (balanced-release)'],
      clients: ['A', 'B'],
      starvation: '1200ms',
      steps: [
        act(20, 'A', 'acquire', { 'watchdog-lease': ms(lease) }),
        ...Array.from({ length: extra }, (_, i) => act(40 + 20 * i, 'A', 'acquire', { 'watchdog-lease': ms(lease) })),
        act(150, 'A', 'enter'),
        act(250, 'A', 'leave'),
        act(300, 'A', 'release'),
        ...Array.from({ length: extraReleases }, (_, i) => act(320 + 20 * i, 'A', 'release', {}, 'balanced-release')),
        act(400, 'B', 'acquire', { lease: '1000ms', wait: '1800ms' }),
        ...turn('B', 450),
      ],
      variants: {
        unsafe: { description: `As recorded: A takes the lock ${extra + 1} times and releases it once`, expect: ['deadlock'] },
        'balanced-release': { description: 'A gives back every hold it took; the count returns to 0 and B gets the lock', expect: 'safe' },
      },
    };
  },

  /** A fair lock's queue head died: the waiters behind it wait for its deadline with the lock free. */
  'dead-queue-head': (s) => {
    const allowance = clamp(s.allowanceMs, 3000, 2000, 3000);
    const queued = (client: string, at: number, timeout: string, only: string) => act(at, client, 'acquire', { lease: '1000ms', wait: '5000ms', 'fair-wait-timeout': timeout }, only);
    return {
      summary: 'The head of the fair queue died; the waiter behind it waits for its deadline with the lock free',
      narration: `${who(s.holder, 'A')} held the fair lock; ${who(s.third, 'W1')} and ${who(s.waiter, 'W2')} queued behind it, each with a deadline ${s.allowanceMs !== undefined ? `${ms(s.allowanceMs)} after the one before (the queue's allowance, fairLockWaitTimeout)` : 'after the one before'}. W1 sent nothing more: it died in the queue. When A released, W2 could not take the free lock before the dead W1's deadline passed. The replay queues with a ${ms(allowance)} allowance; the fix keeps it at 300 ms, so the dead head is purged soon after A's lease.`,
      lookFor: ['W1 crashing while queued', "A's release at 0.5 s and W2 waiting with the lock free (unsafe)", "W2 getting the lock soon after A's lease (short-allowance)"],
      clients: ['A', 'W1', 'W2'],
      starvation: '1500ms',
      steps: [
        act(0, 'A', 'acquire', { lease: '600ms' }),
        act(20, 'A', 'enter'),
        queued('W1', 100, ms(allowance), 'unsafe'),
        queued('W1', 100, '300ms', 'short-allowance'),
        queued('W2', 200, ms(allowance), 'unsafe'),
        queued('W2', 200, '300ms', 'short-allowance'),
        act(300, 'W1', 'crash'),
        act(480, 'A', 'leave'),
        act(500, 'A', 'release'),
        act(550, 'W2', 'enter'),
        act(600, 'W2', 'leave'),
        act(600, 'W2', 'release'),
      ],
      variants: {
        unsafe: { description: `As recorded: a ${ms(allowance)} allowance; W2 waits for the dead W1's deadline`, expect: ['deadlock'] },
        'short-allowance': { description: 'A 300 ms allowance: the dead W1 is purged soon after A\'s lease', expect: 'safe' },
      },
    };
  },

  /** A dead reader kept in a read-write lock by a live reader's renewals: the writer waits with nobody reading. */
  'orphan-hold': (s) => {
    const lease = clamp(s.holder?.leaseMs, 1500, 1500, 3000);
    const x = lease / 1500;
    const at = (n: number) => Math.round((n * x) / 10) * 10;
    const reader = (client: string, t: number) => [
      act(t, client, 'acquire', { 'watchdog-lease': ms(lease), 'renew-readers': 'all' }, 'unsafe'),
      act(t, client, 'acquire', { 'watchdog-lease': ms(lease) }, 'own-renewal'),
      act(t + 50, client, 'enter'),
    ];
    return {
      summary: "A dead reader's hold outlived its own lease, kept by another reader's renewals; the writer waits with nobody reading",
      narration: `${who(s.holder, 'R1')} took the read lock with a ${ms(s.holder?.leaseMs ?? lease)} lease and sent nothing more: it died holding it. ${who(s.third, 'R2')}'s watchdog renewed the lock, and with it R1's hold (Redisson up to 4.3 renews every reader's timeout keys), so after R2 left, ${who(s.waiter, 'W')} still waited for the dead R1. The fix renews only each reader's own keys (Redisson 4.4.0 and later).`,
      lookFor: ['R1 crashing inside the read lock', "R2's release leaving the lock held by the dead R1 (unsafe)", "W getting the lock at R2's release (own-renewal)"],
      clients: [
        { name: 'R1', kind: 'read' },
        { name: 'R2', kind: 'read' },
        { name: 'W', kind: 'write' },
      ],
      starvation: ms(at(1500)),
      steps: [
        ...reader('R1', 0),
        ...reader('R2', 100),
        act(200, 'R1', 'crash'),
        act(at(1000), 'W', 'acquire', { lease: '1000ms', wait: ms(at(4000)) }),
        ...turn('W', at(1000) + 50),
        act(at(1950), 'R2', 'leave'),
        act(at(2000), 'R2', 'release'),
      ],
      variants: {
        unsafe: { description: "As recorded: every reader's watchdog renews every reader's keys; the dead R1's stay alive", expect: ['deadlock'] },
        'own-renewal': { description: "Each reader's watchdog renews only its own keys; R1's run out and W gets the lock at R2's release", expect: 'safe' },
      },
    };
  },
};
