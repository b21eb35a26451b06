// Wait steps: the timetable holds until the event a race depends on is seen, instead of a fixed
// sleep. Each proof pairs a variant with the wait and one without it, so it fails if the wait
// stops holding the next step: the server's own answers (a one-attempt SET NX, the counter) say
// which came first, never a wall-clock window. A wait that gives up makes the variant
// inconclusive with the reason, and the steps after it never run.

import { describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../src/core/scenario/history.js';
import type { Scenario } from '../../src/scenario/model.js';
import { runScenario } from '../../src/scenario/run-scenario.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, scenario, step } from './fixture.js';

const notes = (events: readonly { kind: string }[]): NoteEvent[] => events.filter((e): e is NoteEvent => e.kind === 'note');
const indexOf = (events: readonly unknown[], e: unknown): number => events.indexOf(e);

// A's 1.5 s lease; B tries once at 60 ms. With the wait, B's one attempt comes after the key is gone.
const EXPIRY: Scenario = scenario({
  steps: [
    acquire('A', 0, { leaseMs: 1500 }),
    { at: 50, wait: { until: 'expired' }, only: ['waits'] },
    acquire('B', 60, { leaseMs: 1000 }),
  ],
  variants: [
    { name: 'waits', description: 'B waits for A\'s lease to be gone on the server', expect: [] },
    { name: 'no-wait', description: 'B tries at 60 ms', expect: [] },
  ],
});

// A reads the counter, and writes it back 400 ms later; B increments at 30 ms.
const REPLY: Scenario = scenario({
  steps: [
    step('A', 0, { do: 'incr', gapMs: 400 }),
    { at: 20, wait: { until: 'reply', client: 'A' }, only: ['waits'] },
    step('B', 30, { do: 'incr', gapMs: 0 }),
  ],
  variants: [
    // Neither holds a lock (stale-holder): only the counter tells the two apart.
    { name: 'waits', description: "B waits for A's increment to return", expect: ['stale-holder'] },
    { name: 'no-wait', description: "B increments inside A's gap", expect: ['stale-holder', 'lost-update'] },
  ],
});

describe('wait steps', () => {
  const fx = useSandbox({ topology: 'single', name: 'runner-waits' });

  it('until expired: the next step runs only once the server shows the key gone', async () => {
    // The wait is placed well before the expiry: a tolerance this wide lets the later steps move with it.
    const run = await runScenario(EXPIRY, { sandbox: fx.sandbox, attempts: 1, toleranceMs: 1000 });
    const [waits, noWait] = run.variants;
    const info = run.variants.map((v) => `${v.variant}: ${JSON.stringify(v.verdict.violations.map((x) => x.kind))} ${JSON.stringify(v.timing)}\n${dump(v.history)}`).join('\n');
    // Without the wait B's one SET NX meets A's key: the server refuses it.
    expect(done(noWait!.history, 'B', 'acquire').phase, info).toBe('fail');
    // With it, the server takes B's one SET NX: the key was gone when it arrived.
    const events = waits!.history.events;
    expect(done(waits!.history, 'B', 'acquire').phase, info).toBe('ok');
    const seen = notes(events).find((n) => n.text === 'waited for orders expired: seen');
    expect(seen, info).toBeDefined();
    expect(indexOf(events, invoke(waits!.history, 'B', 'acquire')), info).toBeGreaterThan(indexOf(events, seen));
    expect(indexOf(events, seen), info).toBeGreaterThan(indexOf(events, done(waits!.history, 'A', 'acquire')));
    for (const v of run.variants) expect(v.outcome, info).not.toBe('not-as-expected');
  }, 30_000);

  it('an expiry due long after the wait\'s time is too late for the race: inconclusive, with the wait named', async () => {
    // The default tolerance (100 ms here) lets later steps move that far with the event, not 1.4 s.
    const run = await runScenario(EXPIRY, { sandbox: fx.sandbox, attempts: 1, variants: ['waits'] });
    const [v] = run.variants;
    const info = `${JSON.stringify(v?.timing)}\n${v ? dump(v.history) : ''}`;
    expect(v?.outcome, info).toBe('inconclusive');
    // The reason names the wait, the first thing past the window, unless a busy machine also made
    // step 1 late. (Not the worst: B's acquire, right after the wait, is as late or a little later.)
    expect(v?.timing.inconclusive, info).toMatch(/^(step 2 \(wait for orders expired\): the event itself|step 1 \(A acquire\)) ran [\d.]+ m?s late: the machine was too busy/);
    // Still never before the event: B's one attempt found the key gone.
    expect(done(v!.history, 'B', 'acquire').phase, info).toBe('ok');
  }, 30_000);

  it("until reply: the next step runs only once the client's pending step has returned", async () => {
    const run = await runScenario(REPLY, { sandbox: fx.sandbox, attempts: 1, toleranceMs: 1000 });
    const [waits, noWait] = run.variants;
    const info = run.variants.map((v) => `${v.variant}: ${JSON.stringify(v.verdict.violations.map((x) => x.kind))} ${JSON.stringify(v.timing)}\n${dump(v.history)}`).join('\n');
    const end = (h: typeof waits) => h!.history.events.at(-1) as { kind: string; counter?: number };
    // Inside A's gap, B's increment is lost when A writes back: the counter ends at 1.
    expect(end(noWait).counter, info).toBe(1);
    // After A's reply, both count: 2, and B's increment started after A's returned.
    expect(end(waits).counter, info).toBe(2);
    const events = waits!.history.events;
    expect(indexOf(events, invoke(waits!.history, 'B', 'incr')), info).toBeGreaterThan(indexOf(events, done(waits!.history, 'A', 'incr')));
    for (const v of run.variants) expect(v.outcome, info).not.toBe('not-as-expected');
  }, 30_000);

  it('a wait that gives up makes the variant inconclusive with the reason, never a verdict, and runs no later step', async () => {
    // A's lease outlives the wait's 300 ms; the file expects a violation the run will not show.
    const stuck = scenario({
      steps: [acquire('A', 0, { leaseMs: 5000 }), { at: 50, wait: { until: 'expired', timeoutMs: 300 } }, acquire('B', 100, { leaseMs: 1000 })],
      variants: [{ name: 'unsafe', description: 'expects what it cannot show', expect: ['mutual-exclusion'] }],
    });
    const run = await runScenario(stuck, { sandbox: fx.sandbox, attempts: 2 });
    const [v] = run.variants;
    const info = `${JSON.stringify(v?.timing)}\n${v ? dump(v.history) : ''}`;
    expect(v?.outcome, info).toBe('inconclusive');
    expect(v?.attempts, info).toBe(2);
    expect(v?.timing.inconclusive, info).toMatch(/^step 2 \(wait for orders expired\) gave up after 300 ms: "orders" was still there with [\d.]+ m?s to live$/);
    expect(v!.history.events.some((e) => e.kind === 'op' && e.client === 'B'), info).toBe(false);
    expect(notes(v!.history.events).map((n) => n.text), info).toContain('gave up waiting for orders expired');
  }, 30_000);

  it("a reply that does not come within the wait's timeout is inconclusive too", async () => {
    const slow = scenario({
      steps: [step('A', 0, { do: 'incr', gapMs: 1000 }), { at: 20, wait: { until: 'reply', client: 'A', timeoutMs: 100 } }, step('B', 30, { do: 'incr', gapMs: 0 })],
      variants: [{ name: 'unsafe', description: 'B would lose nothing', expect: ['lost-update'] }],
    });
    const run = await runScenario(slow, { sandbox: fx.sandbox, attempts: 1 });
    const [v] = run.variants;
    expect(v?.outcome).toBe('inconclusive');
    expect(v?.timing.inconclusive).toBe("step 2 (wait for A's reply) gave up after 100 ms: A had not returned from its steps");
  }, 30_000);
});
