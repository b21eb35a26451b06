import { describe, expect, it } from 'vitest';
import { RunClock } from '../../src/scenario/clock.js';
import type { ClientStep } from '../../src/scenario/model.js';
import { TimingProbe } from '../../src/scenario/timing-probe.js';
import { UnfinishedSteps } from '../../src/scenario/unfinished-steps.js';

// A fault that meets a client's quick step still in flight (A's acquire cut off by its own
// partition on a busy machine) makes the run late; a step that waits by design does not.

const step = (client: string, extra: Record<string, unknown> = {}): ClientStep => ({ at: 0, client, do: 'acquire', leaseMs: 300, waitMs: 0, ...extra }) as unknown as ClientStep;
const pending = (): Promise<void> => new Promise<void>(() => undefined);

function setup() {
  const clock = new RunClock(1);
  clock.start();
  const probe = new TimingProbe(clock);
  return { probe, unfinished: new UnfinishedSteps(probe, clock), running: () => false };
}

describe('steps a fault was not meant to catch', () => {
  it('a quick step still unanswered when its client is partitioned is late from its own time', async () => {
    const { probe, unfinished, running } = setup();
    unfinished.track(step('A'), 'step 1 (A acquire)', -200, pending());
    unfinished.fault('step 3 (A partition)', 'A', running);
    const report = probe.report(50);
    expect(report.inconclusive).toMatch(/^step 1 \(A acquire\), still unanswered when step 3 \(A partition\) began, ran 2\d\d ms late/);
  });

  it('a finished step, another client, a step waiting by design or a paused client are not late', async () => {
    const { probe, unfinished } = setup();
    const done = Promise.resolve();
    unfinished.track(step('A'), 'step 1 (A acquire)', -200, done);
    unfinished.track(step('B'), 'step 2 (B acquire)', -200, pending());
    unfinished.track(step('C', { waitMs: 1000 }), 'step 3 (C acquire)', -200, pending());
    unfinished.track(step('C'), 'step 4 (C enter)', -150, pending());
    unfinished.track(step('D'), 'step 5 (D acquire)', -200, pending());
    await done;
    unfinished.fault('step 6 (A partition)', 'A', () => false);
    unfinished.fault('step 7 (latency n1)', undefined, (c) => c === 'B' || c === 'D');
    expect(probe.report(50).inconclusive).toBeUndefined();
  });

  it('steps dispatched once a fault reached the client are not tracked: they run under it on purpose', () => {
    const { probe, unfinished, running } = setup();
    unfinished.fault('step 1 (latency n1)', undefined, running);
    unfinished.track(step('A'), 'step 2 (A acquire)', -300, pending());
    unfinished.fault('step 3 (heal n1)', undefined, running);
    expect(probe.report(50).inconclusive).toBeUndefined();
  });
});
