import { Option } from 'commander';
import type { ActionResult, ProxyHook, SandboxHandle } from '../../sandbox/index.js';
import { FAILOVER_HOWS, type FailoverHow } from '../../sandbox/index.js';
import { UsageError } from '../../core/errors.js';
import { parseDuration } from '../../core/duration.js';
import { DEFAULT_STALL_MS } from '../../sandbox/stall.js';
import { note, type RunContext } from '../context.js';
import { durationFlag } from '../options.js';

/** What a verb did: reported at once, and (pause --for) a later step reported when it happens. */
export interface VerbRun {
  readonly action: ActionResult;
  readonly later?: Promise<ActionResult>;
}

export type VerbFlags = Readonly<Record<string, unknown>>;

/**
 * One fault verb of `redlock-cli sandbox`. The command file gives every verb `--name <sandbox>` and
 * `--json`, loads the sandbox, runs it, and prints what it did and the topology state after it.
 */
export interface SandboxVerb {
  readonly name: string;
  readonly summary: string;
  /** A positional argument, e.g. `<node>`. */
  readonly argument?: { readonly spec: string; readonly description: string };
  readonly options?: readonly Option[];
  run(sandbox: SandboxHandle, arg: string | undefined, flags: VerbFlags, ctx: RunContext): Promise<VerbRun>;
}

const NODE_ARG = { spec: '<node>', description: 'node name from `sandbox status` (n1, s1, ...), or `primary` for the current primary' };

/** Ctrl-C during `pause --for` resumes the node now instead of leaving it stopped. */
function resumeEarlyOnAbort(sandbox: SandboxHandle, node: string, resumed: Promise<ActionResult>, signal: AbortSignal | undefined): Promise<ActionResult> {
  if (!signal) return resumed;
  const onAbort = (): void => void sandbox.resume(node).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  return resumed.finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * `latency n1 200ms`, `clock n1 +10s`: the table has one positional, so these declare it variadic
 * (`<node> <value>` arrives as an array) and split it here.
 */
function nodeAndValue(arg: unknown, what: string, example: string): [string, string] {
  const words = ([] as unknown[]).concat(arg).map(String);
  if (words.length !== 2) throw new UsageError(`expected a node and ${what}, e.g. ${example}`);
  return [words[0]!, words[1]!];
}

/** The fault verbs; adding one is one entry here (and its library function in src/sandbox). */
export const SANDBOX_VERBS: readonly SandboxVerb[] = [
  {
    name: 'kill',
    summary: 'SIGKILL a node: its port refuses connections until `restart`',
    argument: NODE_ARG,
    run: async (sandbox, node) => ({ action: await sandbox.kill(node!) }),
  },
  {
    name: 'restart',
    summary: 'start a node again on the same port (SIGKILL first if it runs); it always comes back empty: there is no persistence',
    argument: NODE_ARG,
    options: [new Option('--amnesia', "also delete the node's data directory before it starts")],
    run: async (sandbox, node, flags) => ({ action: await sandbox.restart(node!, { amnesia: flags.amnesia === true }) }),
  },
  {
    name: 'pause',
    summary: 'SIGSTOP a node: connections are accepted but nothing is answered (a GC pause, a frozen VM)',
    argument: NODE_ARG,
    options: [new Option('--for <duration>', 'resume it after this long (e.g. 3s); the command waits, Ctrl-C resumes early')],
    run: async (sandbox, node, flags, ctx) => {
      const forMs = durationFlag(flags.for as string | undefined, '--for');
      // The pending resume is reported as `later`, not inside the action: --json printed it as {}.
      const { resumed, ...action } = await sandbox.pause(node!, forMs !== undefined ? { forMs } : {});
      return resumed ? { action, later: resumeEarlyOnAbort(sandbox, action.node, resumed, ctx.signal) } : { action };
    },
  },
  {
    name: 'resume',
    summary: 'SIGCONT a paused node: it answers again, including what queued up while it was stopped',
    argument: NODE_ARG,
    run: async (sandbox, node) => ({ action: await sandbox.resume(node!) }),
  },
  {
    name: 'failover',
    summary: 'make a replica the primary: kill or pause the primary and let Sentinel promote one, or force it',
    options: [
      new Option('--how <how>', 'kill (SIGKILL the primary), pause (SIGSTOP it) or force (SENTINEL FAILOVER, primary keeps running)')
        .choices(FAILOVER_HOWS)
        .default('kill'),
    ],
    run: async (sandbox, _node, flags, ctx) => ({
      action: await sandbox.failover({
        how: flags.how as FailoverHow,
        signal: ctx.signal,
        onProgress: ctx.stderr.isTTY ? (line) => note(ctx, line) : undefined,
      }),
    }),
  },
  {
    name: 'latency',
    summary: 'slow every round trip to a node through its fault proxy (up --proxy), e.g. latency n1 200ms (half each way); heal ends it',
    argument: { spec: '<node-and-delay...>', description: 'the node (n1, ..., or `primary`), then the delay per round trip, e.g. n1 200ms' },
    run: async (sandbox, arg) => {
      const [node, delay] = nodeAndValue(arg, 'a delay', 'latency n1 200ms');
      return { action: await sandbox.latency(node, parseDuration(delay, 'latency')) };
    },
  },
  {
    name: 'partition',
    summary: "cut a node off from its clients through its fault proxy (up --proxy): connections reset, new ones refused; replication and sentinels still reach it",
    argument: NODE_ARG,
    options: [new Option('--hold', 'keep connections open but forward nothing (clients time out instead of failing fast)')],
    run: async (sandbox, node, flags) => ({ action: await sandbox.partition(node!, { hold: flags.hold === true }) }),
  },
  {
    name: 'heal',
    summary: "undo latency / partition on a node's proxy, and end a replication stall on a replica",
    argument: NODE_ARG,
    run: async (sandbox, node) => ({ action: await sandbox.heal(node!) }),
  },
  {
    name: 'clock',
    summary: "jump a node's wall clock (+10s; -- -2s for back) or run it fast (x2), so its keys expire early: libfaketime, else TTL rewrite",
    argument: { spec: '<node-and-change...>', description: 'the node, then +10s / -2s (a jump) or x2 / x1 (a rate), e.g. n3 +10s' },
    run: async (sandbox, arg) => {
      const [node, change] = nodeAndValue(arg, 'a clock change', 'clock n3 +10s');
      return { action: await sandbox.clock(node, change) };
    },
  },
  {
    name: 'stall-replication',
    summary: 'stop a replica applying its primary\'s writes (CLIENT PAUSE WRITE), so a failover loses what the primary acknowledged meanwhile',
    argument: { spec: '<replica>', description: 'a replica node (n2, ...)' },
    options: [new Option('--for <duration>', `how long the stall lasts (default ${DEFAULT_STALL_MS / 1000}s); heal ends it early`)],
    run: async (sandbox, node, flags) => {
      const forMs = durationFlag(flags.for as string | undefined, '--for');
      return { action: await sandbox.stallReplication(node!, forMs !== undefined ? { forMs } : {}) };
    },
  },
];

/** The TCP fault proxy `up --proxy` puts in front of every node: one proxy process per sandbox. */
export const proxyFactory: () => Promise<ProxyHook> = () => import('../../sandbox/proxy-hook.js').then((m) => m.proxyHook());
