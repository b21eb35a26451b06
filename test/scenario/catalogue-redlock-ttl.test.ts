import { describe, expect, it } from 'vitest';
import { checkHistory, describeVerdict } from '../../src/core/scenario/checker.js';
import { matchesExpectation } from '../../src/core/scenario/verdict.js';
import { resolveScenario } from '../../src/scenario/load.js';
import { runVariant } from '../../src/scenario/runner.js';
import { useSandbox } from '../helpers/sandbox.js';
import { dump } from './fixture.js';

// redlock-clock-jump where libfaketime is missing: the same file on nodes started without fake
// clocks, so the clock fault falls back to rewriting n3's TTLs. Both variants must still reach
// their verdicts, and the fault says which method it used.
describe('redlock-clock-jump with the TTL-rewrite fallback', () => {
  const fx = useSandbox({ topology: 'redlock', nodes: 5, name: 'catalogue-redlock-ttl' });

  it('every variant matches its expectation, and the clock fault says it was emulated', async () => {
    const scenario = await resolveScenario('redlock-clock-jump');
    expect(scenario.sandbox.fakeClock).toBe(true);
    for (const variant of scenario.variants) {
      const { history } = await runVariant(scenario, variant, { sandbox: fx.sandbox });
      const verdict = checkHistory(history, { starvationMs: scenario.starvationMs });
      const why = `${variant.name}: ${describeVerdict(verdict).join('; ')}\n${dump(history)}`;
      expect(matchesExpectation(verdict, variant.expect), why).toBe(true);
      const clock = history.events.find((e) => e.kind === 'fault' && e.verb === 'clock' && e.phase === 'ok');
      expect(clock?.kind === 'fault' ? clock.detail : undefined, why).toMatch(/^clock \+\S+ (s|ms) on n3 emulated by rewriting TTLs \(.*\): 1 key\(s\) with a TTL moved, [01] expired now$/);
    }
  });
});
