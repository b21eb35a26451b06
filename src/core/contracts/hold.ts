// hold --json: NDJSON, one line per event (src/commands/hold-lines.ts holdJson, src/core/hold-events.ts).
// On stdout; with a command under the lock, on stderr (stdout is the command's).
import { z } from 'zod';
import { isoTime } from './shapes.js';

const holders = z.array(z.strictObject({ owner: z.string(), count: z.number() }));
const base = { at: isoTime, key: z.string() };
const who = { kind: z.string(), owner: z.string() };
const event = <E extends string, S extends z.ZodRawShape>(name: E, shape: S) =>
  z.strictObject({ event: z.literal(name), ...base, ...shape });

export const holdEvent = z.discriminatedUnion('event', [
  event('acquiring', { ...who, waitMs: z.number() }),
  event('acquired', {
    ...who,
    mode: z.enum(['watchdog', 'fixed']),
    leaseMs: z.number(),
    renewEveryMs: z.number().optional(),
    count: z.number(),
    token: z.number().optional(),
  }),
  event('not-acquired', { ...who, ttlMs: z.number(), holders }),
  event('renewed', { ttlMs: z.number(), renewals: z.number() }),
  event('retrying', { error: z.string(), retryInMs: z.number() }),
  event('reconnecting', { target: z.string() }),
  event('reconnected', { target: z.string() }),
  event('lost', { reason: z.enum(['renewal-refused', 'gone', 'lease-ran-out']), holders: holders.optional() }),
  event('expired', { heldMs: z.number() }),
  event('child-started', { pid: z.number(), command: z.array(z.string()) }),
  event('child-stopping', { pid: z.number(), signal: z.enum(['SIGTERM', 'SIGKILL']), why: z.string() }),
  event('child-exited', { pid: z.number(), code: z.number().nullable(), signal: z.string().nullable() }),
  event('released', {
    reason: z.enum(['for-elapsed', 'interrupted', 'child-exited', 'child-failed-to-start']),
    outcome: z.enum(['released', 'decremented', 'not-owner']),
    heldMs: z.number(),
  }),
]);
