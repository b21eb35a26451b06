// Leaf schemas of the scenario file surface (durations, names, enums, strict mappings), each with
// its own message: the loader prints the first issue as it is, so every message here must read
// well after "file:line:col: field.path: ".

import { z } from 'zod';
import { parseDuration } from '../core/duration.js';
import { LOCK_KINDS } from '../locks/types.js';

/** How a value the file gave reads in a message: `"acquier"`, `300`, `a list`. */
export function describeInput(input: unknown): string {
  if (input === null) return 'an empty value';
  if (typeof input === 'string') return JSON.stringify(input.length > 40 ? `${input.slice(0, 37)}...` : input);
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  return String(input);
}

type Iss = { readonly input?: unknown; readonly code?: string };

/** A message for a value of the wrong shape: `missing; expected X` or `expected X, got Y`. */
export function expected(what: string): (iss: Iss) => string {
  return (iss) => (iss.input === undefined ? `missing; expected ${what}` : `expected ${what}, got ${describeInput(iss.input)}`);
}

/**
 * One of a fixed set of words: `unknown step "acquier"; expected one of acquire, release, ...`;
 * `refused` gives its own message for a word that exists elsewhere but not here.
 */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, noun: string, refused?: (input: unknown) => string | undefined) {
  const list = values.join(', ');
  return z.enum(values, {
    error: (iss) =>
      refused?.(iss.input) ??
      (iss.input === undefined
        ? `missing; expected one of ${list}`
        : typeof iss.input === 'string'
          ? `unknown ${noun} "${iss.input}"; expected one of ${list}`
          : `expected one of ${list}, got ${describeInput(iss.input)}`),
  });
}

/**
 * A mapping that refuses keys it does not know (a typo must not be silently ignored). `where`
 * names it in that message: ` in an enter step`.
 */
export function strict<T extends z.core.$ZodLooseShape>(shape: T, where = '') {
  const keys = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code === 'unrecognized_keys') return `unknown key "${String(iss.keys[0])}"${where}; expected one of ${keys}`;
      return expected(`a mapping (keys: ${keys})`)(iss);
    },
  });
}

/** Non-empty text (titles, descriptions, notes). */
export const text = z
  .string({ error: expected('text') })
  .refine((s) => s.trim() !== '', { error: 'must not be empty' });

/** Text, or a number written without quotes (`value: 42`, `min-replicas-to-write: 1`), kept as text. */
export const textOrNumber = z
  .union([z.string(), z.number()], { error: expected('text or a number (quote yes / no / true / false)') })
  .transform((v) => String(v));

export const list = <T extends z.ZodType>(item: T, what: string) => z.array(item, { error: expected(`a list of ${what}`) });

/** Client, variant and other names users type on the command line and see as lanes. */
export const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
export const name = (what: string) =>
  z
    .string({ error: expected(`a ${what} name`) })
    .regex(NAME, { error: (iss) => `invalid ${what} name ${describeInput(iss.input)}: use a letter, then letters, digits, - or _` });

/** A node of the topology (n1, s1, primary); whether it exists is checked against the topology later. */
export const nodeName = z.string({ error: expected('a node name (n1, n2, ..., or primary)') }).min(1, { error: 'must not be empty' });

export const flag = z.boolean({ error: expected('true or false') });

/** A whole number from `min`. */
export const count = (min: number) =>
  z
    .number({ error: expected(`a whole number from ${min}`) })
    .refine((n) => Number.isInteger(n) && n >= min, { error: (iss) => `expected a whole number from ${min}, got ${describeInput(iss.input)}` });

/**
 * The kinds a scenario can take. A group multi-lock is left out: its values are the hashed field
 * names a Redisson client writes (`--values`), which a scenario file has no place for, so it would
 * fail at its first acquire instead of at load.
 */
type ScenarioLockKind = Exclude<(typeof LOCK_KINDS)[number], 'multi-lock'>;
const SCENARIO_LOCK_KINDS = LOCK_KINDS.filter((kind) => kind !== 'multi-lock') as unknown as readonly [ScenarioLockKind, ...ScenarioLockKind[]];

export const lockKind = oneOf(SCENARIO_LOCK_KINDS, 'lock kind', (input) =>
  input === 'multi-lock'
    ? "a group multi-lock cannot be a scenario's lock: its values are the hashed names a Redisson client writes (take one with acquire --kind multi-lock --values ...)"
    : undefined,
);

const DURATION_HINT = 'a duration like 300ms or 1.5s';

function toMs(input: unknown, allowZero: boolean, ctx: z.core.$RefinementCtx<unknown>): number {
  const what = allowZero ? `${DURATION_HINT} (or 0)` : DURATION_HINT;
  if (allowZero && (input === 0 || (typeof input === 'string' && /^\s*0+(\.0+)?(ms|s|m|h)?\s*$/.test(input)))) return 0;
  if (typeof input === 'number') {
    ctx.addIssue({ code: 'custom', message: `expected ${what}, got ${input} without a unit (write ${input}ms or ${input}s)`, input });
    return 0;
  }
  if (typeof input !== 'string') {
    ctx.addIssue({ code: 'custom', message: expected(what)({ input }), input });
    return 0;
  }
  try {
    return parseDuration(input);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err), input });
    return 0;
  }
}

/** A positive duration (`300ms`, `1.5s`, `2m`) in ms. */
export const duration = z.unknown().transform((input, ctx) => toMs(input, false, ctx));
/** A duration that may be zero (`at: 0`, `wait: 0`): a point on the timeline or an optional wait. */
export const offset = z.unknown().transform((input, ctx) => toMs(input, true, ctx));
/** A positive duration kept as text in ms (`200ms`), for verbs that take their value as text (latency). */
export const durationText = duration.transform((ms) => `${ms}ms`);

/** Defaults of the optional keys (scenarios/README.md lists them). */
export const DEFAULTS = { starvationMs: 2000, settleMs: 500, watchdogLeaseMs: 900 } as const;

/** `{key: value}`, or nothing when value is undefined (exactOptionalPropertyTypes forbids `key: undefined`). */
export const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Ctx = z.core.$RefinementCtx<unknown>;

/**
 * Parses `raw` with `schema` and reports its issues as the caller's own: used where the schema to
 * apply depends on the input (a step's `do`, a client written as a name or a mapping), so the
 * user sees that schema's precise issue instead of "matched no alternative".
 */
export function delegate<T>(schema: z.ZodType<T>, raw: unknown, ctx: Ctx): T {
  const r = schema.safeParse(raw, { reportInput: true });
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ ...i } as Parameters<Ctx['addIssue']>[0]);
  return z.NEVER;
}
