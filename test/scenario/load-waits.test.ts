// Wait steps in a scenario file: what the loader makes of them, and every way one can be wrong,
// with the one line (file:line:col, field path, what was expected) a user sees, exit 2.

import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { waitTimeoutOf } from '../../src/scenario/model.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { edit, parseError, useTempDir } from './fixtures.js';

// BASE's fourth step, replaced by a wait in each case.
const KILL = '  - { at: 1s, fault: kill, node: n1 }\n';
const withWait = (wait: string): string => edit(KILL, `  - { at: 300ms, wait: ${wait} }\n`);

describe('wait steps in a file', () => {
  it('until expired and until reply load with their options, in ms, sorted by at', () => {
    const s = parseScenario(withWait('{ until: expired, key: other, node: n2, timeout: 2s }'), 'race.yaml');
    expect(s.steps.find((x) => 'wait' in x)).toEqual({ at: 300, wait: { until: 'expired', key: 'other', node: 'n2', timeoutMs: 2000 } });
    const r = parseScenario(withWait('{ until: reply, client: A }'), 'race.yaml');
    expect(r.steps.map((x) => x.at)).toEqual([0, 20, 300, 400]);
    expect(r.steps[2]).toEqual({ at: 300, wait: { until: 'reply', client: 'A' } });
  });

  it("gives up by default after the variant's longest lease plus its longest acquire wait, at least 1 s", () => {
    const s = parseScenario(withWait('{ until: expired }'), 'race.yaml');
    const wait = { until: 'expired' } as const;
    // unsafe: A's 300 ms lease, no acquire wait: the 1 s floor. fixed: B's watchdog 900 ms + its 1 s wait.
    expect(waitTimeoutOf(s, 'unsafe', wait)).toBe(1000);
    expect(waitTimeoutOf(s, 'fixed', wait)).toBe(1900);
    expect(waitTimeoutOf(s, 'fixed', { ...wait, timeoutMs: 250 })).toBe(250);
  });

  it.each([
    ['an unknown event', '{ until: expird }', 'race.yaml:13:33: steps[3].wait.until: unknown wait event "expird"; expected one of expired, reply'],
    ['no event', '{ key: orders }', 'race.yaml:13:24: steps[3].wait.until: missing; expected one of expired, reply'],
    ['not a mapping', 'expired', 'race.yaml:13:24: steps[3].wait: expected a mapping like {until: expired} or {until: reply, client: A}, got "expired"'],
    ['reply without its client', '{ until: reply }', 'race.yaml:13:24: steps[3].wait.client: missing; expected a client name'],
    ['an option of the other event', '{ until: reply, client: A, key: orders }', 'race.yaml:13:51: steps[3].wait: unknown key "key" in a wait until reply; expected one of until, client, timeout'],
    ['a timeout without a unit', '{ until: expired, timeout: 500 }', 'race.yaml:13:51: steps[3].wait.timeout: expected a duration like 300ms or 1.5s, got 500 without a unit (write 500ms or 500s)'],
    ['a client the file does not declare', '{ until: reply, client: C }', 'race.yaml:13:48: steps[3].wait.client: unknown client "C"; expected one of A, B'],
    ['a node the topology lacks', '{ until: expired, node: n9 }', 'race.yaml:13:48: steps[3].wait.node: unknown node "n9"; topology replicated has n1, n2, n3, primary, replicas'],
    ['replicas', '{ until: expired, node: replicas }', 'race.yaml:13:48: steps[3].wait.node: a wait reads one node (n1, primary, ...), not replicas'],
  ])('%s: one line', (_what, wait, message) => {
    expect(parseError(withWait(wait))).toBe(message);
  });

  it("beside client + do, wait is the action's own option, not a wait step", () => {
    expect(parseError(edit(KILL, '  - { at: 300ms, client: A, do: enter, wait: { until: expired } }\n'))).toBe(
      'race.yaml:13:40: steps[3]: unknown key "wait" in an enter step; expected one of at, only, client, do',
    );
    expect(parseError(edit(KILL, '  - { at: 300ms, wait: { until: expired }, note: gone }\n'))).toBe(
      'race.yaml:13:5: steps[3]: a step is one of client + do (a client action), fault (a sandbox fault), wait (for an event) or note, not wait and note at once',
    );
  });
});

describe('redlock-cli scenario run with a wrong wait', () => {
  const env = tempStateEnv();
  const tmp = useTempDir();

  it('exits 2 with one line on stderr and starts nothing', async () => {
    const file = tmp.write('bad-wait.yaml', withWait('{ until: expird }'));
    const r = await runCli(['scenario', 'run', file], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('bad-wait.yaml:13:33: steps[3].wait.until: unknown wait event "expird"; expected one of expired, reply');
  }, 30_000);
});
