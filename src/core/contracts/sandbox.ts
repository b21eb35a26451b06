// sandbox up, status, down and the fault verbs (src/commands/sandbox.ts, sandbox/output.ts).
import { z } from 'zod';

const topology = z.enum(['single', 'replicated', 'sentinel', 'redlock', 'cluster']);

const urls = z.strictObject({
  nodes: z.record(z.string(), z.string()).describe('node name: redis:// URL'),
  primary: z.string().optional(),
  sentinel: z.strictObject({ hosts: z.array(z.string()), masterName: z.string(), url: z.string() }).optional(),
  cluster: z.strictObject({ seeds: z.array(z.string()) }).optional(),
  cliArgs: z.array(z.string()).describe('the redlock-cli options that reach it'),
});

export const sandboxUpJson = z.strictObject({
  name: z.string(),
  topology,
  dir: z.string(),
  formedMs: z.number().optional(),
  nodes: z.array(
    z.strictObject({ name: z.string(), role: z.string(), port: z.number(), pid: z.number(), proxyPort: z.number().optional() }),
  ),
  urls,
});

export const sandboxStatus = z
  .strictObject({
    name: z.string(),
    topology,
    dir: z.string(),
    createdAt: z.string(),
    nodes: z.array(
      z.strictObject({
        name: z.string(),
        port: z.number(),
        pid: z.number(),
        state: z.enum(['running', 'paused', 'killed', 'exited', 'unresponsive']),
        role: z.enum(['primary', 'replica', 'sentinel', 'unknown']),
        startedAt: z.string(),
        replicaOf: z.string().optional(),
        link: z.string().optional(),
        offset: z.number().optional(),
        lagBytes: z.number().optional(),
        keys: z.number().optional(),
        clusterState: z.string().optional(),
        masterSeen: z.string().optional(),
        rssKb: z.number().optional(),
        proxyPort: z.number().optional(),
        env: z.record(z.string(), z.string()).optional(),
      }),
    ),
    master: z
      .strictObject({ name: z.string(), node: z.string().optional(), agreeing: z.number(), sentinels: z.number() })
      .optional(),
    faults: z
      .array(
        z.discriminatedUnion('kind', [
          z.strictObject({ kind: z.literal('paused'), node: z.string() }),
          z.strictObject({ kind: z.literal('killed'), node: z.string() }),
          z.strictObject({ kind: z.literal('latency'), node: z.string(), ms: z.number() }),
          z.strictObject({ kind: z.literal('partition'), node: z.string(), hold: z.boolean() }),
          z.strictObject({ kind: z.literal('proxy-down'), node: z.string(), error: z.string() }),
          z.strictObject({ kind: z.literal('clock'), node: z.string(), skewMs: z.number(), rate: z.number() }),
          z.strictObject({ kind: z.literal('replication-stall'), node: z.string(), untilMs: z.number().describe('epoch ms') }),
        ]),
      )
      .describe('the faults in force, each as the node shows it now'),
    failover: z
      .strictObject({
        by: z.enum(['sentinel', 'cluster']),
        primary: z.string().describe('the primary being replaced'),
        flags: z.array(z.string()).describe('Sentinel: s_down, o_down; Cluster: fail?, fail'),
        stage: z.string().optional().describe("Sentinel's failover-state once one has started"),
        replicas: z.array(z.string()).optional().describe('Cluster: the replicas that can take over its slots'),
      })
      .optional()
      .describe('a primary the topology sees down and has not replaced yet'),
  })
  .meta({ title: 'SandboxStatus' });

/** sandbox status --json: one status with a name, an array of every sandbox up without one. */
export const sandboxStatusJson = z.union([sandboxStatus, z.array(sandboxStatus)]);

export const sandboxDownJson = z.strictObject({
  stopped: z.array(z.strictObject({ name: z.string(), stopped: z.number(), gone: z.number() })),
});

/** Every fault verb (kill, pause, failover, latency, ...): what was done, then the status after it. */
export const sandboxVerbJson = z.strictObject({
  actions: z.array(
    z.strictObject({
      verb: z.string(),
      node: z.string().describe('the node it acted on'),
      pid: z.number(),
      port: z.number(),
      message: z.string(),
      ms: z.number().describe('how long the verb took'),
      how: z.string().optional().describe('failover: how the old primary was stopped'),
      from: z.string().optional().describe('failover: the old primary'),
      to: z.string().optional().describe('failover: the new primary'),
      clock: z.looseObject({}).optional().describe("clock: the node's clock before and after"),
      proxy: z.looseObject({}).optional().describe('latency, partition, heal: the proxy in front of the node'),
      stall: z.looseObject({}).optional().describe('stall-replication: what was stalled'),
    }),
  ),
  status: sandboxStatus,
});
