import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/scenario/load.js';
import { useSandbox } from '../helpers/sandbox.js';
import { expectNoWrongVerdict } from './catalogue-run.js';
import { dump } from './fixture.js';

// redlock-clock-jump where libfaketime is missing: the same file on nodes started without fake
// clocks, so the clock fault falls back to rewriting n3's TTLs. Both variants must still reach
// their verdicts, and the fault says which method it used.
describe('redlock-clock-jump with the TTL-rewrite fallback', () => {
  const fx = useSandbox({ topology: 'redlock', nodes: 5, name: 'catalogue-redlock-ttl' });

  it('every variant matches its expectation, and the clock fault says it was emulated', async () => {
    const scenario = await resolveScenario('redlock-clock-jump');
    expect(scenario.sandbox.fakeClock).toBe(true);
    for (const { variant, history } of await expectNoWrongVerdict(scenario, fx.sandbox)) {
      const why = `${variant}\n${dump(history)}`;
      const clock = history.events.find((e) => e.kind === 'fault' && e.verb === 'clock' && e.phase === 'ok');
      expect(clock?.kind === 'fault' ? clock.detail : undefined, why).toMatch(/^clock \+\S+ (s|ms) on n3 emulated by rewriting TTLs \(.*\): 1 key\(s\) with a TTL moved, [01] expired now$/);
    }
  });
});
