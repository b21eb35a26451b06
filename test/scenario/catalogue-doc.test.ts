import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_END, CATALOGUE_START, catalogueMarkdown, replaceCatalogue } from '../../src/scenario/catalogue-markdown.js';
import { listScenarios } from '../../src/scenario/load.js';

// The README's catalogue is drawn from scenarios/*.yaml; editing a scenario's summary or variants
// without `npm run readme:catalogue` leaves the README describing another catalogue.

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

describe('the README scenario catalogue', () => {
  it('is the table the scenario files draw, one row per shipped scenario', async () => {
    const scenarios = await listScenarios();
    const table = catalogueMarkdown(scenarios);
    const start = readme.indexOf(CATALOGUE_START);
    expect(start, 'README.md has the catalogue markers').toBeGreaterThan(0);
    expect(readme.slice(start, readme.indexOf(CATALOGUE_END) + CATALOGUE_END.length), 'run npm run readme:catalogue').toBe(table);
    for (const s of scenarios) expect(table).toContain(`| \`${s.name}\` |`);
  });

  it('replaces only what lies between the markers', () => {
    const doc = `intro\n${CATALOGUE_START}\nold\n${CATALOGUE_END}\noutro\n`;
    expect(replaceCatalogue(doc, 'NEW')).toBe('intro\nNEW\noutro\n');
    expect(replaceCatalogue('no markers here', 'NEW')).toBeUndefined();
  });
});
