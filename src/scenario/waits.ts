// Wait steps: the timetable holds until the event a race depends on is seen (a lease gone on the
// server, another client's reply) instead of a fixed sleep that hopes it has happened. A fixed
// sleep can be right by the runner's clock and still too early for the event on a busy machine,
// which no lateness figure shows. After a wait the next step cannot run before its event, and it
// is still measured against its plan (the runner's awaitEvent, timing.ts).

import { loopbackEndpoint } from '../core/endpoint.js';
import { formatDuration } from '../core/duration.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import type { ClientRuntime } from './client.js';
import { sleep } from '../core/sleep.js';
import type { RunClock } from './clock.js';
import type { WaitFor, WaitStep } from './model.js';
import { LockReader } from './reader.js';
import type { Recorder } from './recorder.js';

// Between two reads of the key: short next to any lease a scenario uses, and one round trip each.
const POLL_EVERY_MS = 5;

export interface WaitContext {
  readonly clock: RunClock;
  readonly recorder: Recorder;
  readonly sandbox: SandboxHandle;
  /** The runner's own readers (every node the lock lives on). */
  readonly readers: readonly LockReader[];
  /** The variant's lock key, the default of `until: expired`. */
  readonly key: string;
  readonly clients: ReadonlyMap<string, ClientRuntime>;
  readonly signal: AbortSignal;
}

/** A wait's end: when its event was seen, and when it was due by the server's own account. */
export type WaitResult =
  | {
      readonly seen: true;
      /** Scenario ms the event was seen. */
      readonly seenMs: number;
      /** Scenario ms the event was due: the key's last PTTL from when it was read (expired), else undefined. */
      readonly dueMs?: number | undefined;
    }
  | { readonly seen: false; readonly reason: string };

/** The wait in a few words: `orders expired`, `A's reply`. */
export function waitLabel(wait: WaitFor, key: string): string {
  return wait.until === 'expired' ? `${wait.key ?? key} expired${wait.node !== undefined ? ` on ${wait.node}` : ''}` : `${wait.client}'s reply`;
}

/** Waits for the step's event for at most `timeoutMs` (scenario ms); records what it saw on the scenario lane. */
export async function runWait(step: WaitStep, timeoutMs: number, ctx: WaitContext): Promise<WaitResult> {
  const label = waitLabel(step.wait, ctx.key);
  const result = step.wait.until === 'expired' ? await untilExpired(step.wait, timeoutMs, ctx) : await untilReply(step.wait, timeoutMs, ctx);
  if (result.seen) ctx.recorder.note('scenario', `waited for ${label}: seen`);
  else ctx.recorder.note('scenario', `gave up waiting for ${label}`);
  return result;
}

async function untilExpired(wait: Extract<WaitFor, { until: 'expired' }>, timeoutMs: number, ctx: WaitContext): Promise<WaitResult> {
  const key = wait.key ?? ctx.key;
  const { readers, owned } = await readersFor(wait.node, ctx);
  const { clock } = ctx;
  const deadline = clock.now() + timeoutMs;
  let dueMs: number | undefined;
  let last = 'no node answered';
  try {
    while (!ctx.signal.aborted) {
      const sent = clock.now();
      const reads = await Promise.all(readers.map((r) => r.peek(key).then((p) => p.ttlMs, () => undefined)));
      // Gone on every node read: PTTL -2. A node that did not answer has not shown it gone.
      if (reads.every((ttl) => ttl === -2)) return { seen: true, seenMs: clock.now(), dueMs };
      const ttls = reads.filter((t): t is number => t !== undefined && t !== -2);
      if (ttls.includes(-1)) last = `"${key}" has no TTL`;
      else if (ttls.length > 0) {
        // The server's own word on when the key goes: the latest read wins (a renewal moves it).
        dueMs = sent + clock.scenario(Math.max(...ttls));
        last = `"${key}" was still there with ${formatDuration(Math.max(...ttls))} to live`;
      } else last = 'no node answered';
      if (clock.now() >= deadline) break;
      await sleep(POLL_EVERY_MS, ctx.signal);
    }
  } finally {
    await Promise.all(owned.map((r) => r.close()));
  }
  return { seen: false, reason: `gave up after ${formatDuration(timeoutMs)}: ${last}` };
}

/** The runner's readers of `node` (all of them without one), or a reader of its own for a node they do not read. */
async function readersFor(node: string | undefined, ctx: WaitContext): Promise<{ readers: readonly LockReader[]; owned: LockReader[] }> {
  if (node === undefined) return { readers: ctx.readers, owned: [] };
  const named = ctx.readers.filter((r) => r.node === node);
  if (named.length > 0) return { readers: named, owned: [] };
  const port = (await ctx.sandbox.node(node)).port;
  const own = new LockReader({ node, resolve: async () => loopbackEndpoint(port) }, ctx.sandbox, 'redlock-cli:scenario-wait');
  return { readers: [own], owned: [own] };
}

async function untilReply(wait: Extract<WaitFor, { until: 'reply' }>, timeoutMs: number, ctx: WaitContext): Promise<WaitResult> {
  const client = ctx.clients.get(wait.client);
  if (!client) return { seen: false, reason: `no client named ${wait.client}` };
  const stop = new AbortController();
  const timedOut = sleep(ctx.clock.real(timeoutMs), AbortSignal.any([ctx.signal, stop.signal])).then(() => false);
  const returned = await Promise.race([client.idle().then(() => true), timedOut]);
  stop.abort();
  if (returned) return { seen: true, seenMs: ctx.clock.now() };
  return { seen: false, reason: `gave up after ${formatDuration(timeoutMs)}: ${wait.client} had not returned from its steps` };
}
