import { describe, expect, it } from 'vitest';
import { outcomesExitCode } from '../../../src/core/scenario/run.js';
import { judgeTiming, outcomeOf, type LateSample } from '../../../src/core/scenario/timing.js';

const sample = (what: string, plannedMs: number, actualMs: number, cause: LateSample['cause'] = 'machine'): LateSample => ({ what, plannedMs, actualMs, cause });
const loop = (lateMs: number): LateSample => sample("the runner's timers", 0, lateMs);

describe('judging a run by its timing', () => {
  it('a run within its tolerance keeps its verdict, and reports its latest step', () => {
    const report = judgeTiming([sample('step 1 (A acquire)', 0, 3), sample('step 4 (B acquire)', 400, 449)], 50);
    expect(report).toEqual({ toleranceMs: 50, measured: 2, worst: { what: 'step 4 (B acquire)', lateMs: 49, cause: 'machine' } });
    expect(outcomeOf(true, report)).toBe('as-expected');
    expect(outcomeOf(false, report)).toBe('not-as-expected');
  });

  it('a step later than the tolerance makes the run inconclusive, with the step and the lateness', () => {
    const report = judgeTiming([sample('step 1 (A acquire)', 0, 3), sample('step 4 (B acquire)', 400, 580)], 50);
    expect(report.inconclusive).toBe('step 4 (B acquire) ran 180 ms late: the machine was too busy (this race tolerates 50 ms)');
    // Whatever the verdict said.
    expect(outcomeOf(true, report)).toBe('inconclusive');
    expect(outcomeOf(false, report)).toBe('inconclusive');
  });

  it('of several too late, the first by planned time is the reason; the latest is still the worst', () => {
    // A wait whose event came late holds back the step after it, which adds a little of its own.
    const samples = [sample('step 3 (B acquire)', 160, 1517), sample('step 2 (wait for orders expired): the event itself', 150, 1504), sample('step 1 (A acquire)', 0, 100.04)];
    const report = judgeTiming(samples, 100);
    expect(report.worst).toEqual({ what: 'step 3 (B acquire)', lateMs: 1357, cause: 'machine' });
    expect(report.inconclusive).toBe('step 2 (wait for orders expired): the event itself ran 1354 ms late: the machine was too busy (this race tolerates 100 ms)');
    // Late, but within the window: not a reason.
    expect(judgeTiming([sample('step 1 (A acquire)', 0, 100.04), sample('step 4 (B acquire)', 400, 580)], 100).inconclusive).toMatch(/^step 4 \(B acquire\) ran 180 ms late/);
  });

  it('a step held at the prompt says so', () => {
    const report = judgeTiming([sample('step 3 (A release)', 30, 2130, 'prompt')], 50);
    expect(report.inconclusive).toBe('step 3 (A release) waited 2100 ms past its time at the prompt (this race tolerates 50 ms)');
  });

  it("the event loop's own lateness counts only beyond twice the tolerance, and a named late step is named first", () => {
    expect(judgeTiming([sample('step 2 (A pause)', 20, 25)], 50, [loop(90)]).inconclusive).toBeUndefined();
    expect(judgeTiming([sample('step 2 (A pause)', 20, 25)], 50, [loop(130)]).inconclusive).toBe(
      "the runner's timers ran 130 ms late: the machine was too busy (this race tolerates 100 ms anywhere, 50 ms in a step or timer)",
    );
    expect(judgeTiming([sample('step 2 (A pause)', 20, 95)], 50, [loop(200)]).inconclusive).toMatch(/^step 2 \(A pause\) ran 75 ms late/);
  });

  it('nothing measured: nothing to hold against the run', () => {
    expect(judgeTiming([], 50)).toEqual({ toleranceMs: 50, measured: 0 });
  });

  it('exit codes: a wrong verdict is 7 even beside an inconclusive one, inconclusive alone is 8', () => {
    expect(outcomesExitCode(['as-expected', 'as-expected'])).toBe(0);
    expect(outcomesExitCode(['as-expected', 'inconclusive'])).toBe(8);
    expect(outcomesExitCode(['inconclusive', 'not-as-expected'])).toBe(7);
  });
});
