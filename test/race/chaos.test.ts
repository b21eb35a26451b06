import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RaceResult } from '../../src/race/run.js';
import { env, kinds, ops, plan, race } from './helpers.js';

// Chaos runs on a sandbox the race starts for itself (and stops: its directory is gone after).
const fresh = { type: 'fresh' } as const;
const sandboxDirs = (): string[] => {
  try {
    return readdirSync(join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'));
  } catch {
    return [];
  }
};
const faults = (r: RaceResult, verb: string) => r.keys[0]!.history.events.filter((e) => e.kind === 'fault' && e.verb === verb && e.phase === 'ok');

describe('race --chaos on a sandbox it starts', () => {
  it('pause freezes a holder in-process: unfenced, its late write lands (stale-write); fenced, the register refuses it', async () => {
    const common = { clients: 4, durationMs: 3500, leaseMs: 200, holdMs: 20, chaos: 'pause', chaosEveryMs: 700, target: fresh } as const;
    const [unfenced, fenced] = await Promise.all([race(plan('', { ...common, kind: 'reentrant' })), race(plan('', { ...common, kind: 'fenced' }))]);
    for (const r of [unfenced, fenced]) {
      expect(faults(r, 'pause').length).toBeGreaterThanOrEqual(3);
      expect(ops(r, 'pause', 'ok').length).toBeGreaterThanOrEqual(3);
      expect(kinds(r)).toContain('mutual-exclusion');
    }
    expect(kinds(unfenced)).toContain('stale-write');
    expect(fenced.keys[0]!.rejectedWrites).toBeGreaterThan(0);
    expect(kinds(fenced)).not.toContain('stale-write');
    expect(sandboxDirs()).toEqual([]);
  }, 30_000);

  it('clock jumps the node two leases ahead: the holder loses its lock mid-hold', async () => {
    // Holds of 800 ms leave the lock free only for the moment between a release and the next
    // acquire, and jumps every 900 ms land 100, 200, 300 ms into a hold. (With 300 ms holds, a
    // third of the period, every jump fell at a hand-over: nobody held a lock to lose.)
    const r = await race(plan('', { kind: 'token', clients: 4, durationMs: 3000, leaseMs: 1000, holdMs: 800, chaos: 'clock', chaosEveryMs: 900, target: fresh }));
    const done = faults(r, 'clock');
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(r.stats.lostLocks).toBeGreaterThan(0);
    expect(sandboxDirs()).toEqual([]);
  }, 30_000);

  it('partition cuts the clients off through the fault proxy: nobody acquires until the heal, then the race carries on', async () => {
    const r = await race(plan('', { kind: 'token', clients: 4, durationMs: 3500, leaseMs: 200, holdMs: 10, chaos: 'partition', chaosEveryMs: 1500, target: fresh }));
    const events = r.keys[0]!.history.events;
    const healed = faults(r, 'partition')[0]!;
    const cutAt = events.find((e) => e.kind === 'fault' && e.phase === 'invoke' && e.verb === 'partition')!.t;
    const granted = ops(r, 'acquire', 'ok').map((e) => e.t);
    // Nobody gets the lock while cut off: a waiter's commands either wait in ioredis's queue while it
    // reconnects (a long wait) or fail (an acquire error), depending on when the cut caught them.
    expect(granted.filter((t) => t > cutAt + 50 && t < healed.t - 50)).toEqual([]);
    const failedWhileCut = ops(r, 'acquire', 'fail').filter((e) => e.t > cutAt && e.t < healed.t + 50);
    expect(r.stats.waits.max > 250 || failedWhileCut.length > 0, JSON.stringify({ waits: r.stats.waits, failedWhileCut })).toBe(true);
    expect(granted.some((t) => t > healed.t + 50)).toBe(true);
    expect(sandboxDirs()).toEqual([]);
  }, 30_000);
});
