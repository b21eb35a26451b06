// who --json: one document, each lock's holders and waiters resolved to connections
// (src/core/who/model.ts).
import { z } from 'zod';
import { epochMs, inspectKind, ms } from './shapes.js';

const connection = z.strictObject({
  addr: z.string(),
  name: z.string().optional().describe('CLIENT SETNAME'),
  libName: z.string().optional().describe('CLIENT SETINFO lib-name (Redis 7.2+)'),
  libVer: z.string().optional(),
  ageMs: ms('how long the connection has been open').optional(),
  idleMs: ms('since its last command').optional(),
  gone: z.boolean().optional().describe('not in CLIENT LIST any more'),
});

const party = {
  owner: z.string(),
  connection: connection.optional(),
  via: z.enum(['monitor', 'trace-memory', 'owner-label']).optional().describe('how the connection was learned'),
  label: z.string().optional().describe("the library's own label for the owner (ShedLock's host)"),
  position: z.number().optional().describe('fair queue: 0 is next in line'),
};

const freesInMs = ms('until the lease runs out').nullable().describe('null: no TTL, it never frees');
const liveness = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('alive') }),
  z.strictObject({ state: z.literal('gone'), freesInMs }),
  z.strictObject({ state: z.literal('zombie-renewer'), renewer: connection, freesInMs }),
  z.strictObject({ state: z.literal('unresolved') }),
  z.strictObject({ state: z.literal('unknown') }),
]);

const chainParty = z.strictObject({ connection: connection.optional(), owner: z.string() });

export const whoJson = z.strictObject({
  locks: z.array(
    z.strictObject({
      key: z.string(),
      kind: inspectKind,
      library: z.string(),
      ttlMs: z.number(),
      holders: z.array(z.strictObject({ ...party, liveness, renewers: z.array(connection) })),
      waiters: z.array(z.strictObject(party)),
      subscribers: z.strictObject({ count: z.number(), connections: z.array(connection), exact: z.boolean() }),
    }),
  ),
  chains: z.array(
    z.strictObject({
      waiter: chainParty,
      links: z.array(z.strictObject({ lock: z.string(), holder: chainParty })),
      cycle: z.boolean().describe('the last holder is the first waiter again: a deadlock'),
    }),
  ),
  sample: z.strictObject({ ms: ms('how long MONITOR was sampled (0: not at all)'), endedEarly: z.boolean() }),
  limits: z.array(z.string()).describe('what could not be learned, naming the ACL rule that would allow it'),
  readAt: epochMs,
});
