// acquire, renew, release, force-unlock: one JSON object each (src/commands/<command>.ts).
import { z } from 'zod';

const lockKind = z.string().describe('the lock kind used: reentrant, fair, read, write, spin, fenced, token, redlock');
const holders = z.array(z.strictObject({ owner: z.string(), count: z.number() }));
const votes = z
  .array(
    z.strictObject({
      node: z.string(),
      result: z.enum(['locked', 'held', 'error', 'pending']),
      ms: z.number(),
      detail: z.string().optional(),
    }),
  )
  .describe("redlock: each node's answer");

const attempt = { key: z.string(), kind: lockKind, owner: z.string(), leaseMs: z.number() };

export const acquireJson = z.union([
  z.strictObject({
    acquired: z.literal(true),
    ...attempt,
    count: z.number().describe('re-entrant holds after this one'),
    token: z.number().optional().describe('fenced: the fencing token'),
    votes: votes.optional(),
    validityMs: z.number().optional(),
  }),
  z.strictObject({
    acquired: z.literal(false),
    ...attempt,
    ttlMs: z.number().describe("the holder's lease left"),
    holders,
    votes: votes.optional(),
  }),
]);

const held = { key: z.string(), kind: lockKind, owner: z.string() };

export const renewJson = z.strictObject({ ...held, renewed: z.boolean(), leaseMs: z.number() });

export const releaseJson = z.strictObject({
  ...held,
  outcome: z.enum(['released', 'decremented', 'not-owner']),
  holdsReleased: z.number(),
});

export const forceUnlockJson = z.strictObject({
  key: z.string(),
  kind: lockKind,
  deleted: z.boolean(),
  previousHolders: holders,
});
