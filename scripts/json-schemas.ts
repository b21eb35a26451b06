// Writes docs/json/<file>.schema.json for every --json output, from the zod contracts in
// src/core/contracts/ (the one source: test/contracts/json-schemas.test.ts fails when a file here
// differs from what this writes, and validates real output against the same contracts).
//
//   npm run docs:json
import { readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { JSON_CONTRACTS } from '../src/core/contracts/index.js';
import { JSON_SCHEMA_DIR, schemaFileText } from '../src/core/contracts/files.js';

const written = new Set<string>();
for (const contract of JSON_CONTRACTS) {
  const name = `${contract.file}.schema.json`;
  writeFileSync(`${JSON_SCHEMA_DIR}/${name}`, schemaFileText(contract));
  written.add(name);
}
// A contract removed or renamed leaves no stale file behind.
for (const name of readdirSync(JSON_SCHEMA_DIR)) {
  if (name.endsWith('.schema.json') && !written.has(name)) unlinkSync(`${JSON_SCHEMA_DIR}/${name}`);
}
console.log(`${JSON_SCHEMA_DIR}: ${written.size} schemas`);
