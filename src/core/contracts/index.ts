// Every --json output's contract: which command lines print it, whether it is one JSON document or
// NDJSON (one value per line), and its zod schema. docs/json/<file>.schema.json is generated from
// here (npx tsx scripts/json-schemas.ts); test/contracts/json-schemas.test.ts checks the files
// are current and validates the real output of the built CLI against each schema.
// A new command with --json: its schema in this folder, one entry below, a run in that test.
import { z } from 'zod';
import { errorJsonSchema } from './error.js';
import { holdEvent } from './hold.js';
import { acrossNodesJson, doctorJson, lockViews, watchTick } from './inspect.js';
import { acquireJson, forceUnlockJson, releaseJson, renewJson } from './locks.js';
import { raceJson } from './race.js';
import { sandboxDownJson, sandboxStatusJson, sandboxUpJson, sandboxVerbJson } from './sandbox.js';
import { scenarioListJson, scenarioRunAllJson, scenarioRunJson, scenarioShowJson } from './scenario.js';
import { targetJson, targetListJson } from './target.js';
import { traceLine } from './trace.js';
import { whoJson } from './who.js';

/**
 * The version of every shape below. Within a version fields are only added (read what you know,
 * ignore the rest); removing, renaming or retyping a field is a new version, named in the CHANGELOG.
 */
export const JSON_CONTRACT_VERSION = 1;

/** `document`: stdout is one JSON value. `ndjson`: a stream, one JSON value per line, as it happens. */
export type JsonForm = 'document' | 'ndjson';

export interface JsonContract {
  /** docs/json/<file>.schema.json */
  readonly file: string;
  /** The command lines that print it: the command, and the options that choose this shape. */
  readonly commands: readonly string[];
  readonly form: JsonForm;
  readonly description: string;
  readonly schema: z.ZodType;
}

/** What stands for every fault verb of `sandbox` (kill, pause, failover, ...) in `commands`. */
export const SANDBOX_VERB = 'sandbox <fault verb>';

export const JSON_CONTRACTS: readonly JsonContract[] = [
  { file: 'acquire', commands: ['acquire'], form: 'document', description: 'The attempt: taken (count, token) or refused (who holds it).', schema: acquireJson },
  { file: 'renew', commands: ['renew'], form: 'document', description: 'The renewal and the lease it set.', schema: renewJson },
  { file: 'release', commands: ['release'], form: 'document', description: 'What release did.', schema: releaseJson },
  { file: 'force-unlock', commands: ['force-unlock'], form: 'document', description: 'What was deleted and who held it.', schema: forceUnlockJson },
  { file: 'hold', commands: ['hold'], form: 'ndjson', description: "One line per event; on stderr when a command runs under the lock (stdout is the command's).", schema: holdEvent },
  { file: 'inspect', commands: ['inspect', 'ls'], form: 'document', description: 'One array, a LockView per key (inspect: in the order given; ls: in scan order, streamed).', schema: lockViews },
  { file: 'inspect-watch', commands: ['inspect --watch'], form: 'ndjson', description: "One line per tick: every key's LockView.", schema: watchTick },
  { file: 'across-nodes', commands: ['inspect --nodes', 'ls --nodes'], form: 'document', description: 'Each key across the Redlock nodes, counted against their majority.', schema: acrossNodesJson },
  { file: 'doctor', commands: ['doctor'], form: 'document', description: 'One array of findings.', schema: doctorJson },
  { file: 'race', commands: ['race'], form: 'document', description: 'Every figure of the race and each key\'s recorded history.', schema: raceJson },
  { file: 'trace', commands: ['trace', 'trace --from'], form: 'ndjson', description: 'Events and findings as they happen, then one summary line.', schema: traceLine },
  { file: 'sandbox-up', commands: ['sandbox up'], form: 'document', description: 'What is running and how to connect.', schema: sandboxUpJson },
  { file: 'sandbox-status', commands: ['sandbox status'], form: 'document', description: 'One status with a name; an array of every sandbox up without one.', schema: sandboxStatusJson },
  { file: 'sandbox-down', commands: ['sandbox down'], form: 'document', description: 'What was stopped.', schema: sandboxDownJson },
  { file: 'sandbox-verb', commands: [SANDBOX_VERB], form: 'document', description: 'What the fault verb did, and the status after it.', schema: sandboxVerbJson },
  { file: 'scenario-list', commands: ['scenario list'], form: 'document', description: 'The scenarios and their variants.', schema: scenarioListJson },
  { file: 'scenario-show', commands: ['scenario show'], form: 'document', description: 'The scenario as the runner reads it, durations in ms.', schema: scenarioShowJson },
  { file: 'scenario-run', commands: ['scenario run'], form: 'document', description: "One scenario's variants: verdict, timing and history.", schema: scenarioRunJson },
  { file: 'scenario-run-all', commands: ['scenario run --all'], form: 'document', description: 'One entry per scenario; one that could not run has its error.', schema: scenarioRunAllJson },
  { file: 'target-list', commands: ['target list'], form: 'document', description: 'The saved targets, never a password.', schema: targetListJson },
  { file: 'target-show', commands: ['target show'], form: 'document', description: 'One saved target (an entry of target list).', schema: targetJson },
  { file: 'who', commands: ['who'], form: 'document', description: "Each lock's holders and waiters resolved to connections, and the blocked-by chains.", schema: whoJson },
  { file: 'error', commands: ['*'], form: 'document', description: 'On stderr, in place of the error line, when a command fails without a result.', schema: errorJsonSchema },
];

/** The JSON Schema (draft 2020-12) of docs/json/<file>.schema.json, its $id carrying the version. */
export function jsonSchemaOf(contract: JsonContract): Record<string, unknown> {
  const { $schema, title: _title, description: _description, ...rest } = z.toJSONSchema(contract.schema) as Record<string, unknown>;
  const form = contract.form === 'ndjson' ? 'NDJSON: each line is one value of this schema. ' : '';
  return {
    $schema,
    $id: `urn:redlock-cli:json:${contract.file}:v${JSON_CONTRACT_VERSION}`,
    title: `redlock-cli ${contract.commands.join(', ')} --json`,
    description: `${form}${contract.description}`,
    ...rest,
  };
}

/** A contract's value with readonly arrays and fields, as the code's own types have them. */
type Frozen<T> = T extends (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/** The value a contract describes, for a printer's return type: `(): JsonOf<typeof acquireJson>`. */
export type JsonOf<Contract extends z.ZodType> = Frozen<z.output<Contract>>;
