// The YAML surface of a scenario file (scenarios/README.md documents it key by key). Keys are
// kebab-case; the parsed result is already in the model's shape (camelCase, durations in ms,
// defaults filled in). Steps stay in file order here, so cross-field checks can still name
// `steps[3]`; load.ts sorts them by `at` afterwards.

import { z } from 'zod';
import { VIOLATION_KINDS, type ViolationKind } from '../core/scenario/verdict.js';
import { TOPOLOGIES } from '../sandbox/types.js';
import type { ResourceOptions, Scenario, ScenarioClient, ScenarioSandbox, SeedEntry, Variant } from './model.js';
import { stepSchema } from './schema-steps.js';
import {
  count,
  DEFAULTS,
  delegate,
  describeInput,
  duration,
  expected,
  flag,
  isRecord,
  list,
  lockKind,
  name,
  NAME,
  nodeName,
  offset,
  oneOf,
  opt,
  strict,
  text,
  textOrNumber,
} from './schema-values.js';

export { stepSchema, CLIENT_STEPS, FAULTS, ACQUIRE_MODES, RELEASE_MODES, RENEW_MODES, WAIT_EVENTS } from './schema-steps.js';

export { DEFAULTS } from './schema-values.js';
export const FENCING_MODES = ['off', 'strict', 'at-least'] as const;

const config = z.record(z.string(), textOrNumber, { error: expected('a mapping of redis-server settings (name: value)') });

const sandbox = strict({
  topology: oneOf(TOPOLOGIES, 'topology'),
  nodes: count(1).optional(),
  'fake-clock': flag.optional(),
  config: config.optional(),
}).transform(
  (s): ScenarioSandbox => ({ topology: s.topology, ...opt('nodes', s.nodes), fakeClock: s['fake-clock'] ?? false, config: s.config ?? {} }),
);

const resource = strict({ fencing: oneOf(FENCING_MODES, 'fencing mode') }).transform((r): ResourceOptions => ({ fencing: r.fencing }));

/** `A`, or `{name: A, kind: read, reach: [n1, n2], stop-on-lost: true}`. */
const clientMapping = strict({
  name: name('client'),
  kind: lockKind.optional(),
  reach: list(nodeName, 'node names').optional(),
  'stop-on-lost': flag.optional(),
}).transform((c): ScenarioClient => ({ name: c.name, ...opt('kind', c.kind), ...opt('reach', c.reach), stopOnLost: c['stop-on-lost'] ?? false }));
const client = z.unknown().transform((raw, ctx): ScenarioClient => {
  if (isRecord(raw)) return delegate(clientMapping, raw, ctx);
  if (typeof raw === 'string') return { name: delegate(name('client'), raw, ctx), stopOnLost: false };
  ctx.addIssue({ code: 'custom', message: expected('a client name or a mapping with name')({ input: raw }), input: raw });
  return z.NEVER;
});

const seedString = strict({ string: text, value: textOrNumber }, ' in a string seed').transform(
  (e): SeedEntry => ({ type: 'string', key: e.string, value: e.value }),
);
const seedHash = strict({ hash: text, fields: z.record(z.string(), textOrNumber, { error: expected('a mapping of field: value') }) }, ' in a hash seed').transform(
  (e): SeedEntry => ({ type: 'hash', key: e.hash, fields: e.fields }),
);
/** `{string: key, value: ...}` or `{hash: key, fields: {...}}`: the key's type is the key that names it. */
const seedEntry = z.unknown().transform((raw, ctx): SeedEntry => {
  const shape = 'string: <key> with value, or hash: <key> with fields';
  if (!isRecord(raw)) ctx.addIssue({ code: 'custom', message: expected(`a mapping (${shape})`)({ input: raw }), input: raw });
  else if ('string' in raw && 'hash' in raw) ctx.addIssue({ code: 'custom', message: `a seed entry is one key: ${shape}, not both`, input: raw });
  else if ('string' in raw) return delegate(seedString, raw, ctx);
  else if ('hash' in raw) return delegate(seedHash, raw, ctx);
  else ctx.addIssue({ code: 'custom', message: `a seed entry needs ${shape}`, input: raw });
  return z.NEVER;
});

/** `safe`, one violation kind, or a list of them; the model keeps the list (empty for safe). */
const expect = z.union([z.string(), z.array(z.unknown())], { error: expected('safe or a list of violation kinds') }).transform((v, ctx): ViolationKind[] => {
  const known = `safe or one of ${VIOLATION_KINDS.join(', ')}`;
  if (v === 'safe') return [];
  const kinds = Array.isArray(v) ? v : [v];
  if (kinds.length === 0) ctx.addIssue({ code: 'custom', message: 'expected at least one violation kind (write expect: safe for none)', input: v });
  const seen = new Set<string>();
  kinds.forEach((k, i) => {
    const path = Array.isArray(v) ? [i] : [];
    if (k === 'safe') ctx.addIssue({ code: 'custom', message: 'safe stands alone: write expect: safe', path, input: k });
    else if (typeof k !== 'string' || !(VIOLATION_KINDS as readonly string[]).includes(k)) {
      const what = typeof k === 'string' ? `unknown violation kind "${k}"` : `expected a violation kind, got ${describeInput(k)}`;
      ctx.addIssue({ code: 'custom', message: `${what}; expected ${known}`, path, input: k });
    } else if (seen.has(k)) ctx.addIssue({ code: 'custom', message: `"${k}" is listed twice`, path, input: k });
    seen.add(String(k));
  });
  return VIOLATION_KINDS.filter((k) => seen.has(k));
});

const variant = strict({
  description: text,
  expect,
  lock: strict({ kind: lockKind.optional(), key: text.optional() })
    .refine((l) => l.kind !== undefined || l.key !== undefined, { error: 'expected kind, key or both' })
    .transform((l) => ({ ...opt('kind', l.kind), ...opt('key', l.key) }))
    .optional(),
  resource: resource.optional(),
  sandbox: strict({ config }).optional(),
});

const variants = z
  .record(z.string(), variant, {
    error: (iss) =>
      iss.code === 'invalid_key'
        ? `invalid variant name ${describeInput(iss.path?.at(-1))}: use a letter, then letters, digits, - or _`
        : expected('a mapping of variant name: {description, expect, ...}')(iss),
  })
  .superRefine((v, ctx) => {
    for (const key of Object.keys(v)) {
      if (!NAME.test(key)) ctx.addIssue({ code: 'custom', message: `invalid variant name "${key}": use a letter, then letters, digits, - or _`, path: [key], input: key, params: { key: true } });
    }
    if (Object.keys(v).length === 0) ctx.addIssue({ code: 'custom', message: 'expected at least one variant (e.g. unsafe: and fixed:)', input: v });
  })
  .transform((v): Variant[] =>
    Object.entries(v).map(([n, x]) => ({
      name: n,
      description: x.description,
      expect: x.expect,
      ...opt('lock', x.lock),
      ...opt('resource', x.resource),
      ...opt('sandbox', x.sandbox),
    })),
  );

/** Each client is a connection, a lane on the timeline and a column of the verdict: a few, not thousands. */
export const MAX_SCENARIO_CLIENTS = 32;

/** A whole scenario file; the result lacks only `name` and `file`, and its steps are in file order. */
export const scenarioFileSchema = strict({
  title: text,
  summary: text,
  narration: text,
  sources: list(text, 'texts').optional(),
  'look-for': list(text, 'texts').optional(),
  sandbox,
  lock: strict({ kind: lockKind, key: text }),
  resource: resource.optional(),
  clients: list(client, 'clients')
    .refine((c) => c.length > 0, { error: 'expected at least one client' })
    .refine((c) => c.length <= MAX_SCENARIO_CLIENTS, {
      error: (iss) => `${(iss.input as unknown[]).length} clients, at most ${MAX_SCENARIO_CLIENTS}: a scenario is a few actors on one timeline; for many clients use race --clients`,
    }),
  seed: list(seedEntry, 'seed entries').optional(),
  starvation: duration.optional(),
  settle: offset.optional(),
  tolerance: duration.optional(),
  steps: list(stepSchema, 'steps').refine((s) => s.length > 0, { error: 'expected at least one step' }),
  variants,
}).transform(
  (f): Omit<Scenario, 'name' | 'file'> => ({
    title: f.title,
    summary: f.summary,
    narration: f.narration,
    sources: f.sources ?? [],
    lookFor: f['look-for'] ?? [],
    sandbox: f.sandbox,
    lock: f.lock,
    resource: f.resource ?? { fencing: 'off' },
    clients: f.clients,
    seed: f.seed ?? [],
    steps: f.steps,
    variants: f.variants,
    starvationMs: f.starvation ?? DEFAULTS.starvationMs,
    settleMs: f.settle ?? DEFAULTS.settleMs,
    ...(f.tolerance !== undefined ? { toleranceMs: f.tolerance } : {}),
  }),
);

export type ScenarioFile = z.output<typeof scenarioFileSchema>;
