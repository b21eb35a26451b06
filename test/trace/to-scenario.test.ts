import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listScenarios } from '../../src/scenario/load.js';
import { onSandbox, recordAndConvert, replayOnce, replaysFailover, sameFinding } from '../../scripts/replay/replay-check.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// Issue 31's loop, once per unsafe variant of the catalogue: trace it while it runs, turn the
// recording into a scenario with `trace --from REC --scenario OUT`, run that scenario traced, and
// find the recorded finding again, with every fix safe. A variant whose trace sees nothing unsafe
// (a liveness race, a Redlock race on other nodes, writes the server never sees) gets exit 4 and
// one line saying so. scripts/scenario-replay-repeat.mjs runs the same loop 10 times per variant.

/** What the trace finds first on the catalogue's unsafe variants that show something unsafe to it. */
const SEEN_BY_TRACE: Readonly<Record<string, readonly string[]>> = {
  'client-partition': ['expired-while-held'],
  'expired-lease-misdeletion': ['foreign-delete'],
  'get-then-del-race': ['foreign-delete'],
  'silent-reacquire': ['silent-reacquire'],
  // The trace checks a lock after a failover with EXISTS on the promoted primary: when B took the
  // lock there before the trace followed it, the key exists and A's loss shows at its refused
  // release instead (expired-while-held). Both are the same incident (sameFinding).
  'master-failover-lock-loss': ['lost-in-failover', 'expired-while-held'],
  'gc-pause-no-fencing': ['expired-while-held'],
  'rwlock-writer-starvation': ['starvation'],
  'watchdog-crash-vs-hang': ['starvation'],
  // Liveness: the lock stuck, each by the server's own fact (checker-stuck.ts's why).
  'setnx-expire-crash': ['deadlock'],
  'reentrancy-count-mismatch': ['deadlock'],
  'fair-lock-dead-waiter': ['deadlock'],
  'orphan-rwlock-timeout': ['deadlock'],
  'lock-key-collision': ['deadlock'],
  // Traced on every node (trace --nodes): two majorities at once, through the node that stepped or restarted.
  'redlock-clock-jump': ['overlap'],
  'redlock-restart-amnesia': ['overlap'],
  'redlock-pause-during-acquire': ['expired-while-held'],
};

const catalogue = (await listScenarios()).filter((s) => s.variants.some((v) => v.name === 'unsafe'));
const dir = mkdtempSync(join(tmpdir(), 'redlock-replay-'));
const env = tempStateEnv();

describe('trace --scenario on every unsafe variant of the catalogue', () => {
  it.each(catalogue.map((s) => [s.name, s] as const))('%s', async (name, scenario) => {
    const rec = await recordAndConvert(scenario, dir, env);
    const onTime = rec.recording.run.outcome === 'as-expected';
    if (onTime) expect(SEEN_BY_TRACE[name] ?? [undefined], `${name}: the trace's first unsafe finding`).toContain(rec.kind);
    if (rec.kind === undefined) {
      expect([rec.cli.code, rec.cli.stdout]).toEqual([4, '']);
      expect(rec.cli.stderr).toMatch(/^redlock-cli: trace --scenario: no unsafe finding in the recording( \(only warnings: [a-z-, ]+\))?: nothing to replay\n$/);
      return;
    }
    expect(rec.cli.code, rec.cli.stderr).toBe(0);
    expect(rec.cli.stdout).toMatch(/^wrote .*-replay\.yaml: variants unsafe, [a-z-, ]+; run it with: redlock-cli scenario run /);
    const replay = rec.replay!;
    const result = await onSandbox(replay, dir, (sandbox) => replayOnce(replay, sandbox));
    expect(result.unsafe.outcome, `${name} replay: ${result.unsafe.why}`).not.toBe('not-as-expected');
    if (result.unsafe.outcome === 'as-expected') expect(sameFinding(rec.kind, result.unsafe.kinds, replaysFailover(replay)), `${name} replay found ${result.unsafe.kinds.join(', ')}`).toBe(true);
    for (const fix of result.fixed) expect(fix.outcome, `${name} replay ${fix.variant}: ${fix.why}`).not.toBe('not-as-expected');
    expect(result.fixed.length).toBeGreaterThan(0);
  }, 240_000);
});
