#!/usr/bin/env node
// Writes the scenario catalogue table into README.md between its markers, from scenarios/*.yaml
// (through the built loader, so run npm run build first). --check exits 1 when the README is stale.
//
//   npm run build && npm run readme:catalogue
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const readmePath = `${root}README.md`;
const { listScenarios } = await import(`${root}dist/scenario/load.js`);
const { catalogueMarkdown, replaceCatalogue, CATALOGUE_START } = await import(`${root}dist/scenario/catalogue-markdown.js`);

const readme = readFileSync(readmePath, 'utf8');
const updated = replaceCatalogue(readme, catalogueMarkdown(await listScenarios()));
if (updated === undefined) {
  console.error(`README.md has no catalogue markers: put ${CATALOGUE_START} and <!-- catalogue:end --> where the table goes`);
  process.exit(2);
}
if (process.argv.includes('--check')) {
  if (updated !== readme) {
    console.error('README.md scenario catalogue is stale: run npm run readme:catalogue');
    process.exit(1);
  }
} else if (updated !== readme) {
  writeFileSync(readmePath, updated);
  console.log('README.md: scenario catalogue updated');
} else {
  console.log('README.md: scenario catalogue already up to date');
}
