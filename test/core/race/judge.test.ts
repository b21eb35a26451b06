import { describe, expect, it } from 'vitest';
import { judgeRace, raceSlackMs } from '../../../src/core/race/judge.js';
import type { RaceInput } from '../../../src/core/race/plan.js';
import { plan as racePlan } from '../../race/helpers.js';

// The race tests' plan with a 200 ms lease and 20 ms holds, the race command's defaults.
const plan = (change: Partial<RaceInput>) => racePlan('redis://127.0.0.1:1', { kind: 'reentrant', leaseMs: 200, holdMs: 20, ...change });

describe('how late a race harness may run', () => {
  it('renewed: two thirds of the lease; not renewed: the lease minus the longest hold', () => {
    expect(raceSlackMs(plan({}))).toBe(134);
    expect(raceSlackMs(plan({ renew: false, holdMs: 50 }))).toBe(150);
    expect(raceSlackMs(plan({ renew: false, holdMs: 50, holdDist: 'uniform' }))).toBe(100);
  });

  it('unsafe by design: no slack at all (naive DEL, chaos, holds as long as the lease or unbounded)', () => {
    expect(raceSlackMs(plan({ release: 'naive-del' }))).toBeUndefined();
    expect(raceSlackMs(plan({ chaos: 'pause', durationMs: 10_000, target: { type: 'fresh' } }))).toBeUndefined();
    expect(raceSlackMs(plan({ renew: false, holdMs: 250 }))).toBeUndefined();
    expect(raceSlackMs(plan({ renew: false, holdDist: 'exp' }))).toBeUndefined();
  });

  it('kill-holder breaks no lease: a dead holder stops writing, so lateness can still explain a violation', () => {
    const killing = plan({ chaos: 'kill-holder', durationMs: 10_000, target: { type: 'fresh' } });
    expect(raceSlackMs(killing)).toBe(134);
    expect(judgeRace(killing, 1, 170).outcome).toBe('inconclusive');
    expect(judgeRace(killing, 1, 40).outcome).toBe('unsafe');
  });
});

describe('judging a race', () => {
  it('no violation is safe, whatever the lateness', () => {
    expect(judgeRace(plan({}), 0, 500).outcome).toBe('safe');
  });

  it('violations within the slack stay UNSAFE: no lateness explains them', () => {
    expect(judgeRace(plan({}), 3, 40)).toEqual({ outcome: 'unsafe', slackMs: 134, lateMs: 40 });
  });

  it('1,000 clients at a 200 ms lease whose race process ran 150 ms late: inconclusive, with what to change', () => {
    const j = judgeRace(plan({ clients: 1000 }), 12, 150);
    expect(j.outcome).toBe('inconclusive');
    expect(j.reason).toBe(
      "the harness's timers ran 150 ms late, more than the 134 ms a holder's renewal can be late before its lease runs out: " +
        'the violations may be the harness\'s, not the lock\'s. Run it again with --procs (worker processes), fewer --clients, or a longer --lease',
    );
    expect(judgeRace(plan({ clients: 1000, procs: 4 }), 12, 150).reason).toMatch(/with more --procs than 4,/);
  });

  it('a plan unsafe by design stays UNSAFE however late the harness ran', () => {
    expect(judgeRace(plan({ release: 'naive-del' }), 5, 900).outcome).toBe('unsafe');
  });
});
