// Where the generated schemas live and their exact text, shared by the writer and the test.
import { jsonSchemaOf, type JsonContract } from './index.js';

export const JSON_SCHEMA_DIR = 'docs/json';

/** The text of docs/json/<file>.schema.json: two-space JSON and a final newline. */
export const schemaFileText = (contract: JsonContract): string => `${JSON.stringify(jsonSchemaOf(contract), null, 2)}\n`;
