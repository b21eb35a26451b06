// trace --json (and trace --from --json): NDJSON, one line per event and per finding as it
// happens, then one summary line (src/commands/trace.ts, src/core/trace/).
import { z } from 'zod';
import { TRACE_EVENT_KINDS, TRACE_LIBRARIES } from '../trace/events.js';
import { FINDING_KINDS } from '../trace/finding-kinds.js';
import { STUCK_WHYS } from '../trace/checker-stuck.js';
import { epochMs, traceClient } from './shapes.js';

const traceEvent = z.strictObject({
  type: z.literal('event'),
  kind: z.enum(TRACE_EVENT_KINDS),
  t: epochMs.describe('server time, epoch ms'),
  lock: z.string().describe('* for an event about a node (failover, blind, unblind, clock-step)'),
  owner: z.string().optional(),
  client: traceClient.optional(),
  node: z.string().optional(),
  library: z.enum(TRACE_LIBRARIES).optional(),
  leaseMs: z.number().optional(),
  count: z.number().optional(),
  shared: z.boolean().optional(),
  holders: z.array(z.string()).optional(),
  data: z.literal(true).optional().describe('refused: the key holds application data a plain SET wrote, not a lock'),
  overwrite: z.boolean().optional(),
  fenced: z.boolean().optional().describe('acquired: the grant counted a fencing token'),
  deadline: z.number().optional(),
  stepMs: z.number().optional().describe('clock-step: how far the server clock moved forward beyond the time that passed'),
  command: z.array(z.string()).optional(),
  detail: z.string().optional(),
});

const finding = {
  kind: z.enum(FINDING_KINDS),
  lock: z.string(),
  from: epochMs,
  to: epochMs,
  owners: z.array(z.string()),
  clients: z.array(traceClient),
  unsafe: z.boolean(),
  liveness: z.literal(true).optional().describe('a liveness finding (deadlock, starvation): nobody was inside twice, but a waiter did not get in'),
  why: z.enum(STUCK_WHYS).optional().describe('deadlock: the fact that shows the lock stuck (no-ttl, count-left, dead-queue-head, orphan-hold, data-key)'),
  message: z.string(),
  nodes: z.array(z.string()).optional().describe('a Redlock overlap: the nodes both majorities counted (host:port)'),
  update: z.literal(true).optional().describe('issued again: a later act of the stale owner made its window longer'),
};

const summary = z.strictObject({
  type: z.literal('summary'),
  locks: z.array(z.looseObject({ lock: z.string() }).describe('per lock: acquisitions, refusals, releases, expiries, clients, waitMs, findings')),
  findings: z.array(z.strictObject(finding)),
  blind: z.array(z.looseObject({})).describe('periods the trace saw nothing of a node'),
  unsafe: z.boolean(),
  events: z.number(),
  source: z.enum(['monitor', 'keyspace']).optional().describe('live traces only'),
  lines: z.number().optional(),
  maxLagMs: z.number().optional(),
});

export const traceLine = z.discriminatedUnion('type', [traceEvent, z.strictObject({ type: z.literal('finding'), ...finding }), summary]);
