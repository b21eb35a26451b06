import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CATALOGUE_DOC,
  CATALOGUE_END,
  CATALOGUE_START,
  catalogueMarkdown,
  replaceCatalogue,
} from '../../src/scenario/catalogue-markdown.js';
import { listScenarios } from '../../src/scenario/load.js';

// The scenarios guide's catalogue is drawn from scenarios/*.yaml; editing a scenario's summary or
// variants without `npm run docs:catalogue` leaves the guide describing another catalogue.

const doc = readFileSync(fileURLToPath(new URL(`../../${CATALOGUE_DOC}`, import.meta.url)), 'utf8');

describe('the scenario catalogue in the scenarios guide', () => {
  it('is the table the scenario files draw, one row per shipped scenario', async () => {
    const scenarios = await listScenarios();
    const table = catalogueMarkdown(scenarios);
    const start = doc.indexOf(CATALOGUE_START);
    expect(start, `${CATALOGUE_DOC} has the catalogue markers`).toBeGreaterThan(0);
    expect(doc.slice(start, doc.indexOf(CATALOGUE_END) + CATALOGUE_END.length), 'run npm run docs:catalogue').toBe(
      table,
    );
    for (const s of scenarios) expect(table).toContain(`| \`${s.name}\` |`);
  });

  it('replaces only what lies between the markers', () => {
    const page = `intro\n${CATALOGUE_START}\nold\n${CATALOGUE_END}\noutro\n`;
    expect(replaceCatalogue(page, 'NEW')).toBe('intro\nNEW\noutro\n');
    expect(replaceCatalogue('no markers here', 'NEW')).toBeUndefined();
  });
});
