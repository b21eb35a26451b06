import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/core/scenario/checker.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, runOnTime, scenario, servers, step } from './fixture.js';

// S1 built in TypeScript: A's lease runs out while it is paused, B takes the lock, A releases
// with a plain DEL (unsafe) or an owner-checked release (safe), and C tries to take the lock
// while B is still inside its critical section.

const s1 = scenario({
  clients: ['A', 'B', 'C'],
  variants: [
    { name: 'unsafe', description: 'plain DEL', expect: ['mutual-exclusion'] },
    { name: 'fixed', description: 'owner-checked release', expect: [] },
  ],
  steps: [
    acquire('A', 0, { leaseMs: 300 }),
    step('A', 50, { do: 'pause', forMs: 500 }),
    step('A', 100, { do: 'release', mode: 'naive-del' }, ['unsafe']),
    step('A', 100, { do: 'release', mode: 'safe' }, ['fixed']),
    acquire('B', 400, { leaseMs: 3000 }),
    step('B', 420, { do: 'enter' }),
    acquire('C', 650, { leaseMs: 3000, waitMs: 1500 }),
    step('C', 680, { do: 'enter' }),
    step('C', 700, { do: 'leave' }),
    step('B', 1000, { do: 'leave' }),
    step('B', 1010, { do: 'release', mode: 'safe' }),
  ],
});

describe('runVariant on S1 (expired-lease misdeletion)', () => {
  const fx = useSandbox({ topology: 'single', name: 's1' });

  it('unsafe: A deletes B\'s lock after its pause and C acquires while B is inside', async () => {
    const history = await runOnTime(s1, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    const aRelease = done(history, 'A', 'release');
    expect(aRelease.phase, info).toBe('ok');
    expect(aRelease.detail, info).toBe("DEL removed B's lock");
    // A's pause lasted its 500 ms, and its release ran only once the pause was over.
    expect(done(history, 'A', 'pause').t - invoke(history, 'A', 'pause').t, info).toBeGreaterThanOrEqual(498);
    expect(aRelease.t, info).toBeGreaterThanOrEqual(550);
    const bEnter = done(history, 'B', 'enter');
    const bLeave = done(history, 'B', 'leave');
    const cAcquire = done(history, 'C', 'acquire');
    expect(cAcquire.phase, info).toBe('ok');
    expect(cAcquire.t, info).toBeGreaterThan(bEnter.t);
    expect(cAcquire.t, info).toBeLessThan(bLeave.t);
    expect(bEnter.held, info).toBe(true);
    expect(done(history, 'C', 'enter').held, info).toBe(true);
    // The observer saw the lock change hands: A, gone, B, gone (A's DEL), C.
    const holders = servers(history).map((e) => e.holders.join(','));
    expect(holders, info).toEqual(expect.arrayContaining(['A', 'B', 'C']));
    expect(holders.indexOf('C'), info).toBeGreaterThan(holders.indexOf('B'));
    expect(history.events.at(-1)?.kind).toBe('end');
    expect(checkHistory(history, { starvationMs: s1.starvationMs }).violations.map((v) => v.kind)).toContain('mutual-exclusion');
  });

  it('fixed: A\'s release fails (not owner) and C waits until B releases', async () => {
    const history = await runOnTime(s1, 'fixed', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    const aRelease = done(history, 'A', 'release');
    expect(aRelease.phase, info).toBe('fail');
    expect(aRelease.detail, info).toMatch(/NOT OWNER/);
    const bRelease = invoke(history, 'B', 'release');
    const cAcquire = done(history, 'C', 'acquire');
    expect(cAcquire.phase, info).toBe('ok');
    expect(cAcquire.t, info).toBeGreaterThan(bRelease.t);
    expect(invoke(history, 'C', 'acquire').t, info).toBeLessThan(700);
    expect(checkHistory(history, { starvationMs: s1.starvationMs }).violations, info).toEqual([]);
  });
});
