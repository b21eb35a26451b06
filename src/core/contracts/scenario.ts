// scenario list, show and run (src/commands/scenario.ts, scenario/run.ts).
import { z } from 'zod';
import { history, violation, violationKind } from './shapes.js';

const topology = z.enum(['single', 'replicated', 'sentinel', 'redlock', 'cluster']);
const settings = z.record(z.string(), z.string()).describe('redis-server settings');

export const scenarioListJson = z.array(
  z.strictObject({
    name: z.string(),
    title: z.string(),
    summary: z.string(),
    topology,
    lockKind: z.string(),
    variants: z.array(z.strictObject({ name: z.string(), expect: z.array(violationKind) })),
  }),
);

/** scenario show --json: the scenario as the runner reads it, every duration in ms (src/scenario/model.ts). */
export const scenarioShowJson = z.strictObject({
  name: z.string(),
  file: z.string(),
  title: z.string(),
  summary: z.string(),
  narration: z.string(),
  sources: z.array(z.string()),
  lookFor: z.array(z.string()),
  sandbox: z.strictObject({ topology, nodes: z.number().optional(), fakeClock: z.boolean(), config: settings }),
  lock: z.strictObject({ kind: z.string(), key: z.string() }),
  resource: z.strictObject({ fencing: z.enum(['off', 'strict', 'at-least']) }),
  clients: z.array(
    z.strictObject({ name: z.string(), kind: z.string().optional(), reach: z.array(z.string()).optional(), stopOnLost: z.boolean() }),
  ),
  seed: z.array(
    z.union([
      z.strictObject({ type: z.literal('string'), key: z.string(), value: z.string() }),
      z.strictObject({ type: z.literal('hash'), key: z.string(), fields: z.record(z.string(), z.string()) }),
    ]),
  ),
  steps: z.array(
    z
      .looseObject({ at: z.number().describe('scenario ms'), only: z.array(z.string()).optional() })
      .describe('a client step (client, do, ...), a fault (fault, node, ...), a wait or a note; scenarios/README.md'),
  ),
  variants: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string(),
      expect: z.array(violationKind),
      lock: z.strictObject({ kind: z.string().optional(), key: z.string().optional() }).optional(),
      resource: z.strictObject({ fencing: z.enum(['off', 'strict', 'at-least']) }).optional(),
      sandbox: z.strictObject({ config: settings.optional() }).optional(),
    }),
  ),
  starvationMs: z.number(),
  settleMs: z.number(),
  toleranceMs: z.number().optional(),
});

const variantRun = z.strictObject({
  variant: z.string(),
  description: z.string(),
  expected: z.array(violationKind),
  found: z.array(violationKind),
  matched: z.boolean(),
  outcome: z.enum(['as-expected', 'not-as-expected', 'inconclusive']),
  inconclusive: z.string().optional(),
  attempts: z.number(),
  timing: z.strictObject({
    toleranceMs: z.number(),
    measured: z.number(),
    worst: z.strictObject({ what: z.string(), lateMs: z.number(), cause: z.enum(['machine', 'prompt']) }).optional(),
    inconclusive: z.string().optional(),
  }),
  violations: z.array(violation),
  durationMs: z.number(),
  history,
});

/** scenario run <name> --json: one run; --all: an array of them, a scenario that could not run with its error. */
export const scenarioRunJson = z.strictObject({
  name: z.string(),
  title: z.string(),
  matched: z.boolean(),
  variants: z.array(variantRun),
});

export const scenarioRunAllJson = z.array(
  z.union([
    scenarioRunJson,
    z.strictObject({ name: z.string(), title: z.string(), matched: z.literal(false), error: z.string(), variants: z.tuple([]) }),
  ]),
);
