import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { History } from '../../src/core/scenario/history.js';
import { withFakeClocks } from '../../src/sandbox/clock.js';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { resolveScenario } from '../../src/scenario/load.js';
import { useSandbox } from '../helpers/sandbox.js';
import { REDLOCK } from './catalogue-groups.js';
import { expectNoWrongVerdict } from './catalogue-run.js';
import { done, dump } from './fixture.js';

// The shipped Redlock scenarios (S7, S8, S13), every variant, on one five-node sandbox started
// as `scenario run` starts theirs: under libfaketime (S7 asks for fake clocks) and with the
// fault proxy in this process (S13's latency). Each variant reaches the verdict its file expects.

// The malloc shim libfaketime needs is built into a private state dir, not the user's.
const state = mkdtempSync(join(tmpdir(), 'redlock-catalogue-state-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));
const { options, support } = await withFakeClocks(
  { topology: 'redlock', nodes: 5, name: 'catalogue-redlock', proxy: proxyHook({ mode: 'in-process' }) },
  { ...process.env, XDG_STATE_HOME: state },
);

/** The detail of the clock fault's completion: which method moved n3's clock. */
function clockDetail(history: History): string {
  const ok = history.events.find((e) => e.kind === 'fault' && e.verb === 'clock' && e.phase === 'ok');
  return ok?.kind === 'fault' ? (ok.detail ?? '') : '';
}

describe('shipped Redlock scenarios', () => {
  const fx = useSandbox(options);

  it.each(REDLOCK)('%s: every variant matches its expectation', async (name) => {
    const scenario = await resolveScenario(name);
    expect(scenario.sandbox).toMatchObject({ topology: 'redlock', nodes: 5 });
    for (const { variant, history } of await expectNoWrongVerdict(scenario, fx.sandbox)) {
      const why = `${variant}\n${dump(history)}`;
      if (name === 'redlock-clock-jump') {
        // The file asks for fake clocks: where this machine has libfaketime the jump is real.
        const method = support.method === 'faketime' ? /via libfaketime/ : /emulated by rewriting TTLs/;
        expect(clockDetail(history), why).toMatch(method);
      }
      if (name === 'redlock-pause-during-acquire') {
        // A reads its replies after the pause: a negative validity, trusted or refused.
        const a = done(history, 'A', 'acquire');
        expect(a, why).toMatchObject(
          variant === 'unsafe'
            ? { phase: 'ok', detail: expect.stringMatching(/^validity -\d+ ms, trusted anyway$/) }
            : { phase: 'fail', detail: expect.stringMatching(/validity -\d+ ms$/) },
        );
        expect(a.t, why).toBeGreaterThan(done(history, 'B', 'acquire').t);
      }
    }
  });
});
