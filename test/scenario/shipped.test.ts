// The files users read and copy: the complete example in scenarios/README.md, and every shipped
// scenario, must validate; the README's tables must name what the schema accepts.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VIOLATION_KINDS } from '../../src/core/scenario/verdict.js';
import { listScenarios, parseScenario, scenariosDir } from '../../src/scenario/load.js';
import { CLIENT_STEPS, FAULTS, WAIT_EVENTS } from '../../src/scenario/schema.js';
import { CATALOGUE_GROUPS } from './catalogue-groups.js';

const README = join(scenariosDir(), 'README.md');
const readme = readFileSync(README, 'utf8');

/** The fenced yaml block under the "A complete example" heading. */
function completeExample(): string {
  const section = readme.slice(readme.indexOf('## A complete example'));
  const match = /```yaml\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('no yaml block under "## A complete example"');
  return match[1];
}

describe('scenarios/README.md', () => {
  it('its complete example validates, with both variants and the steps each runs', () => {
    const scenario = parseScenario(completeExample(), 'README.md');
    expect(scenario.variants.map((v) => [v.name, v.expect])).toEqual([
      ['unsafe', ['mutual-exclusion']],
      ['fixed', []],
    ]);
    expect(scenario.steps.filter((s) => s.only?.includes('unsafe'))).toEqual([{ at: 700, only: ['unsafe'], client: 'A', do: 'release', mode: 'naive-del' }]);
    expect(scenario.sources).toEqual(['Redis distlock page ("Using just DEL is not safe")', 'redis-py #416']);
  });

  it('documents every step, fault, wait and violation kind', () => {
    for (const d of CLIENT_STEPS) expect(readme, `do: ${d}`).toContain(`| \`${d}\` |`);
    for (const f of FAULTS) expect(readme, `fault: ${f}`).toContain(`| \`${f}\` |`);
    for (const w of WAIT_EVENTS) expect(readme, `until: ${w}`).toContain(`| \`${w}\` |`);
    for (const k of VIOLATION_KINDS) expect(readme, `violation ${k}`).toContain(`- \`${k}\`:`);
  });
});

describe('the shipped catalogue', () => {
  it('every scenarios/*.yaml file validates', async () => {
    const files = readdirSync(scenariosDir()).filter((f) => /\.ya?ml$/.test(f));
    const scenarios = await listScenarios();
    // Other work fills the catalogue; with no files yet this asserts the empty list, not a pass by default.
    expect(scenarios.map((s) => s.name)).toEqual(files.map((f) => f.replace(/\.ya?ml$/, '')).sort());
    for (const s of scenarios) expect(s.variants.length, s.file).toBeGreaterThan(0);
  });

  it('the catalogue tests run every shipped scenario, each once', async () => {
    const tested = Object.values(CATALOGUE_GROUPS).flat();
    const shipped = (await listScenarios()).map((s) => s.name);
    expect([...tested].sort()).toEqual(shipped);
  });
});
