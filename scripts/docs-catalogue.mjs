#!/usr/bin/env node
// Writes the scenario catalogue table into the scenarios guide (docs/guide/scenarios.md) between its
// markers, from scenarios/*.yaml (through the built loader, so run npm run build first). --check
// exits 1 when the page is stale.
//
//   npm run build && npm run docs:catalogue
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { listScenarios } = await import(`${root}dist/scenario/load.js`);
const { catalogueMarkdown, replaceCatalogue, CATALOGUE_DOC, CATALOGUE_START } = await import(
  `${root}dist/scenario/catalogue-markdown.js`
);
const docPath = `${root}${CATALOGUE_DOC}`;

const doc = readFileSync(docPath, 'utf8');
const updated = replaceCatalogue(doc, catalogueMarkdown(await listScenarios()));
if (updated === undefined) {
  console.error(
    `${CATALOGUE_DOC} has no catalogue markers: put ${CATALOGUE_START} and <!-- catalogue:end --> where the table goes`,
  );
  process.exit(2);
}
if (process.argv.includes('--check')) {
  if (updated !== doc) {
    console.error(`${CATALOGUE_DOC}: the scenario catalogue is stale: run npm run docs:catalogue`);
    process.exit(1);
  }
} else if (updated !== doc) {
  writeFileSync(docPath, updated);
  console.log(`${CATALOGUE_DOC}: scenario catalogue updated`);
} else {
  console.log(`${CATALOGUE_DOC}: scenario catalogue already up to date`);
}
