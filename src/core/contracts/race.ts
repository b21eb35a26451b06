// race --json: one object at the end, every figure and each key's history (src/commands/race/output.ts).
import { z } from 'zod';
import { history, violation } from './shapes.js';

const target = z.union([
  z.strictObject({ type: z.literal('fresh'), redisServer: z.string().optional() }),
  z.strictObject({ type: z.literal('sandbox'), name: z.string().optional() }),
  z.strictObject({
    type: z.literal('url'),
    url: z.string().describe('password masked; a Cluster\'s is its first seed\'s'),
    where: z.string().describe('host:port, or the Sentinel/Cluster seeds, as messages name it'),
    nodes: z.array(z.string()).optional(),
  }),
]);

const percentiles = z.strictObject({ count: z.number(), p50: z.number(), p95: z.number(), p99: z.number(), max: z.number() });

const plan = z.strictObject({
  keys: z.array(z.string()),
  kind: z.string(),
  clients: z.number(),
  procs: z.number(),
  durationMs: z.number(),
  leaseMs: z.number(),
  holdMs: z.number(),
  holdDist: z.string(),
  waitMs: z.number(),
  release: z.string(),
  renew: z.boolean(),
  chaos: z.string().optional(),
  chaosEveryMs: z.number(),
  chaosForMs: z.number(),
  target,
});

export const raceJson = z.strictObject({
  plan,
  target: z.string().describe('host:port (or the sandbox) raced on'),
  elapsedMs: z.number(),
  interrupted: z.boolean(),
  safe: z.boolean(),
  outcome: z.enum(['safe', 'unsafe', 'inconclusive']),
  inconclusive: z.string().optional().describe('why the verdict cannot be trusted'),
  acquisitions: z.number(),
  ratePerSec: z.number(),
  series: z.array(z.number()).describe('acquisitions per second'),
  waits: percentiles.describe('acquire waits (ms) at the clients, round trips and scheduling included'),
  serverTimed: z
    .strictObject({
      waits: percentiles.describe('first attempt to the attempt that took the lock'),
      holds: percentiles.describe('acquisition to release, or to the lease end when it ran out first'),
    })
    .optional()
    .describe(
      "the same waits and holds (ms) on the server's clock, from TIME pipelined behind each lock command: what the exporter measures from MONITOR; absent for Redlock (a clock per node)",
    ),
  timeouts: z.number(),
  refusals: z.number().describe('acquisition attempts the server refused (every try of a waiting acquire)'),
  errors: z.number(),
  lostLocks: z.number(),
  notOwner: z.number(),
  foreignDeletes: z.number(),
  increments: z.number(),
  fairness: z.number(),
  faults: z.array(z.string()),
  crashed: z.number(),
  shares: z.array(z.strictObject({ client: z.string(), acquisitions: z.number(), share: z.number() })),
  harness: z.looseObject({ keptUp: z.boolean() }).describe('how late the harness ran: its CPU, timer delays, the machine'),
  violations: z.array(violation.extend({ key: z.string() })),
  keys: z.array(
    z.strictObject({
      key: z.string(),
      clients: z.array(z.string()),
      acquisitions: z.number(),
      increments: z.number(),
      counter: z.number().nullable(),
      register: z.looseObject({}).nullable(),
      rejectedWrites: z.number(),
      violations: z.array(violation),
      history,
    }),
  ),
});
