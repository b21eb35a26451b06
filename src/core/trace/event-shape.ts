// What a recorded trace event must look like before anything reads it: `--from` takes files
// from anywhere (an edited recording, a capture cut short), and a field of the wrong type or a
// time no clock can show would otherwise surface later as a crash in the checker or a printer.

import { TRACE_EVENT_KINDS, TRACE_LIBRARIES } from './events.js';

/** The largest time a Date can hold (ms either side of the epoch): beyond it no line can print it. */
const MAX_TIME_MS = 8.64e15;

const KINDS: ReadonlySet<unknown> = new Set(TRACE_EVENT_KINDS);
const LIBRARIES: ReadonlySet<unknown> = new Set(TRACE_LIBRARIES);

const isString = (v: unknown) => typeof v === 'string';
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_TIME_MS;
const isStrings = (v: unknown) => Array.isArray(v) && v.every(isString);
const isClient = (v: unknown) =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  ['addr', 'name'].every(
    (k) => (v as Record<string, unknown>)[k] === undefined || isString((v as Record<string, unknown>)[k]),
  );

/** Each field an event may carry, and what its value must be (in words for the error). */
export const EVENT_FIELDS: Readonly<Record<string, readonly [(v: unknown) => boolean, string]>> = {
  kind: [(v) => KINDS.has(v), `one of ${TRACE_EVENT_KINDS.join(', ')}`],
  t: [isTime, 'a time in epoch ms'],
  lock: [isString, 'a string'],
  owner: [isString, 'a string'],
  client: [isClient, 'an object with string addr and name'],
  node: [isString, 'a string'],
  library: [(v) => LIBRARIES.has(v), `one of ${TRACE_LIBRARIES.join(', ')}`],
  leaseMs: [isTime, 'a number of ms'],
  count: [(v) => Number.isSafeInteger(v), 'an integer'],
  shared: [(v) => typeof v === 'boolean', 'true or false'],
  holders: [isStrings, 'a list of strings'],
  overwrite: [(v) => typeof v === 'boolean', 'true or false'],
  fenced: [(v) => typeof v === 'boolean', 'true or false'],
  data: [(v) => v === true, 'true'],
  deadline: [isTime, 'a time in epoch ms'],
  stepMs: [isTime, 'a number of ms'],
  command: [isStrings, 'a list of strings'],
  detail: [isString, 'a string'],
};
const REQUIRED = ['kind', 't', 'lock'] as const;

/** What is wrong with a recorded event (one phrase), or undefined when it is a well-formed one. */
export function eventProblem(value: Readonly<Record<string, unknown>>): string | undefined {
  for (const field of REQUIRED)
    if (value[field] === undefined) return `a trace event needs kind, t and lock; "${field}" is missing`;
  for (const [field, [valid, words]] of Object.entries(EVENT_FIELDS)) {
    if (value[field] !== undefined && !valid(value[field])) return `"${field}" must be ${words}`;
  }
  return undefined;
}

/** True for a time any line can print (what a MONITOR line's timestamp must be too). */
export const printableTime = isTime;
