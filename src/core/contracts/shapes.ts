// Shapes several --json outputs share: a lock as inspect reads it (LockView), a finding, a
// violation, a trace client. Zod here only describes: commands never import these at run time
// (one-shot commands load no zod); tests validate real output with them and
// scripts/json-schemas.ts writes docs/json/ from them.
import { z } from 'zod';
import { INSPECT_KINDS, TOKEN_LIBRARIES } from '../lock-view.js';
import { VIOLATION_KINDS } from '../scenario/verdict.js';

export const ms = (what: string) => z.number().describe(what);
export const epochMs = z.number().describe('epoch ms');
export const isoTime = z.string().describe('ISO 8601 time');

export const severity = z.enum(['error', 'warning', 'info']);
export const inspectKind = z.enum(INSPECT_KINDS as [string, ...string[]]);
export const violationKind = z.enum(VIOLATION_KINDS as unknown as [string, ...string[]]);

const warning = z.strictObject({ code: z.string(), severity, message: z.string() });

const holder = z.strictObject({
  owner: z.string().describe('the raw field or value: <uuid>:<thread> (:write for a writer), or a token'),
  client: z.string().optional(),
  thread: z.string().optional(),
  count: z.number(),
  write: z.boolean().optional(),
});

const timeoutKey = z.strictObject({ key: z.string(), ttlMs: z.number() });

/** One key as inspect reads it: inspect --json, ls --json, inspect --watch --json (src/core/lock-view.ts). */
export const lockView = z
  .strictObject({
    key: z.string(),
    keyHex: z.string().optional().describe('set only when the key is not valid UTF-8'),
    kind: inspectKind,
    possibleKinds: z.array(inspectKind).optional().describe('every kind the data fits, when more than one'),
    type: z.string().describe('Redis type of the key (none when missing)'),
    ttlMs: z.number().describe('PTTL: -1 no TTL, -2 missing'),
    holders: z.array(holder),
    queue: z
      .array(
        z.strictObject({
          owner: z.string(),
          position: z.number(),
          deadlineInMs: z.number().nullable(),
          expectedWaitMs: z.number().optional(),
          subscribers: z.number().optional(),
        }),
      )
      .optional(),
    mode: z.enum(['read', 'write']).optional(),
    readers: z
      .array(
        z.strictObject({
          owner: z.string(),
          client: z.string().optional(),
          thread: z.string().optional(),
          count: z.number(),
          timeoutKeys: z.array(timeoutKey),
          zombie: z.boolean(),
        }),
      )
      .optional(),
    orphanTimeoutKeys: z.array(timeoutKey).optional(),
    multiLockValues: z
      .array(
        z.strictObject({
          value: z.string().describe("Redisson's stored 22-character hash of the value"),
          owner: z.string(),
          count: z.number(),
          leaseLeftMs: z.number().nullable().describe('<= 0: lapsed, free to the next locker; null when absent'),
        }),
      )
      .optional()
      .describe('Redisson group multi-lock: every value held'),
    rateLimiter: z
      .strictObject({
        rate: z.number(),
        intervalMs: ms('the rate interval'),
        type: z.enum(['overall', 'per-client']),
        keepAliveMs: ms('0: none; otherwise each acquisition sets this TTL on its keys'),
        states: z.array(
          z.strictObject({
            client: z.string().nullable().describe('the Redisson client id of a PER_CLIENT state; null for the shared one'),
            stored: z.number().nullable().describe('the :value key; null before the first acquisition'),
            availableNow: z.number().describe('what a tryAcquire would find now'),
            grants: z.array(z.strictObject({ permits: z.number(), agoMs: z.number(), returnsInMs: z.number() })).describe('grants inside the current interval, oldest first'),
            returnablePermits: z.number().describe('permits of grants past the interval, returned at the next acquisition'),
            grantCount: z.number(),
            valueTtlMs: z.number(),
            permitsTtlMs: z.number(),
          }),
        ),
      })
      .optional()
      .describe('Redisson RRateLimiter: its settings and each state'),
    token: z.number().optional(),
    value: z.string().optional(),
    library: z.enum(TOKEN_LIBRARIES).optional(),
    tokenFacts: z
      .strictObject({
        registryKey: z.string().optional(),
        lockKey: z.string().optional(),
        host: z.string().optional(),
        lockedAt: epochMs.optional(),
        id: z.string().optional(),
      })
      .optional()
      .describe("what the token's library stores beside the id: Spring's registry, ShedLock's host and time"),
    metadata: z.string().optional().describe("bsm/redislock: the caller's metadata after its token"),
    keys: z.array(z.string()).optional().describe('bsm/redislock ObtainMulti: every key holding this value'),
    available: z.number().optional(),
    permits: z.array(z.strictObject({ id: z.string(), expiresInMs: z.number().nullable(), expired: z.boolean() })).optional(),
    count: z.number().optional(),
    waiters: z.number(),
    size: z.number().optional(),
    replicas: z
      .array(
        z.strictObject({
          replica: z.string(),
          offset: z.number(),
          lagBytes: z.number(),
          hasKey: z.boolean().nullable().optional(),
          ttlMs: z.number().optional(),
          error: z.string().optional(),
        }),
      )
      .optional(),
    warnings: z.array(warning),
    readAt: epochMs,
    readConsistency: z.enum(['separate-reads', 'changed-during-read']).optional(),
  })
  .meta({ title: 'LockView' });

/** A Redlock key across independent nodes: inspect --nodes and ls --nodes (src/core/across-nodes.ts). */
export const acrossNodes = z.strictObject({
  key: z.string(),
  copies: z.array(
    z.strictObject({
      node: z.string(),
      state: z.enum(['holds', 'absent', 'unreachable']),
      value: z.string().optional(),
      ttlMs: z.number().optional(),
      error: z.string().optional(),
    }),
  ),
  held: z.number(),
  quorum: z.number(),
});

/** A checked history's violation (scenario run, race). */
export const violation = z.strictObject({
  kind: violationKind,
  clients: z.array(z.string()),
  from: z.number(),
  to: z.number(),
  message: z.string(),
});

/** A recorded history (scenario run, race), ordered by t (ms since the run started); src/core/scenario/history.ts. */
export const history = z.strictObject({
  clients: z.array(z.string()),
  nodes: z.array(z.string()),
  events: z.array(
    z
      .looseObject({ kind: z.enum(['op', 'fault', 'server', 'note', 'lock-lost', 'renewed', 'end']), t: z.number() })
      .describe('the fields besides kind and t depend on the kind'),
  ),
});

export const traceClient = z.strictObject({ addr: z.string().optional(), name: z.string().optional() });
