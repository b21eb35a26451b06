import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { isFaultStep } from '../../src/scenario/model.js';
import { onSandbox, recordAndConvert, replayOnce } from '../../scripts/replay/replay-check.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// Issue 31's loop for a clock step: a node's clock steps 5 s forward under A's 2 s lease. The
// live trace sees the step (MONITOR's times jump past its own clock) and records it; `trace
// --scenario` undoes it, so A's key expired early (a clock step, not a lease that ran out), and
// the scenario it writes replays the step on a fake-clock sandbox beside slew-only time.

const dir = mkdtempSync(join(tmpdir(), 'redlock-clock-step-'));

describe('trace --scenario on a recorded clock step', () => {
  it('records the step, infers it, and replays it: the same finding, slew-only safe', async () => {
    const scenario = await loadScenario(join(import.meta.dirname, 'fixtures', 'clock-step-single.yaml'));
    const rec = await recordAndConvert(scenario, dir, tempStateEnv());
    const steps = readFileSync(join(dir, `${scenario.name}.ndjson`), 'utf8').split('\n').filter((l) => l.includes('"clock-step"'));
    expect(steps.map((l) => JSON.parse(l).stepMs > 4000)).toEqual([true]);
    expect([rec.kind, rec.cli.code]).toEqual(['expired-while-held', 0]);
    expect(rec.cli.stderr).toMatch(/the fault is clock step\n$/);
    const replay = rec.replay!;
    expect(replay.sandbox.fakeClock).toBe(true);
    expect(replay.steps.filter(isFaultStep).map((s) => [s.fault, s.only])).toEqual([['clock', ['unsafe']], ['clock', ['slew-only']]]);
    const result = await onSandbox(replay, dir, (sandbox) => replayOnce(replay, sandbox));
    // A machine too busy for the race's timing is inconclusive, never a wrong verdict.
    expect(result.unsafe.outcome, result.unsafe.why).not.toBe('not-as-expected');
    if (result.unsafe.outcome === 'as-expected') expect(result.unsafe.kinds).toContain('expired-while-held');
    expect(result.fixed.map((f) => [f.variant, f.outcome === 'not-as-expected' ? f.why : 'ok'])).toEqual([['slew-only', 'ok']]);
  }, 240_000);
});
