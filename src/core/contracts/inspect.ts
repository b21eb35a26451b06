// inspect, ls and doctor: what is in Redis now, read-only (src/commands/inspect.ts, ls.ts, doctor.ts).
import { z } from 'zod';
import { acrossNodes, lockView, severity } from './shapes.js';

/** inspect --json and ls --json: one array, a LockView per key (inspect: in the order given, missing keys too). */
/** A key on a Cluster primary that could not be read (exit 9): its place in the array, and why. */
export const unreadKey = z
  .strictObject({
    key: z.string(),
    keyHex: z.string().optional(),
    kind: z.literal('unread'),
    node: z.string().describe('the primary that holds its slot'),
    slots: z.string(),
    reason: z.string(),
  })
  .meta({ title: 'UnreadKey' });

export const lockViews = z.array(z.union([lockView, unreadKey]));

/** inspect --watch --json: one line per tick, each the array of every key's LockView. */
export const watchTick = z.array(lockView);

/** inspect --nodes / ls --nodes --json: each key across the Redlock nodes. */
export const acrossNodesJson = z.array(acrossNodes);

/** doctor --json: one array of findings (src/core/doctor.ts). */
export const doctorJson = z.array(
  z.strictObject({
    severity,
    code: z.string().describe('stable machine name: a LockView warning code, or one of doctor\'s own'),
    key: z.string().nullable().describe('null for a server finding'),
    node: z.string().optional().describe('host:port of the node'),
    message: z.string(),
    fix: z.string().describe('a command to copy'),
    scenario: z.string().nullable().describe('the scenario that shows this race, if one does'),
  }),
);
