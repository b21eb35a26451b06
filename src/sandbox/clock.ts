import { join } from 'node:path';
import { formatDuration, parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { stateDir } from '../state/paths.js';
import { detectClockSupport, type ClockMethod, type ClockSupport } from './clock-detect.js';
import { rewriteTtls, type TtlRewrite } from './clock-emulation.js';
import type { CommandRunner } from './clock-runner.js';
import { fakeClockEnv, shiftFakeClock } from './clock-faketime.js';
import { planTopology } from './plan.js';
import type { StartOptions } from './types.js';

export { detectClockSupport, type ClockMethod, type ClockSupport } from './clock-detect.js';
export { fakeClockEnv, fakeClockFile } from './clock-faketime.js';
export type { CommandRunner } from './clock-runner.js';

/** `clock <node> +10s` jumps the wall clock; `x2` makes it run at twice real speed from now on. */
export type ClockChange =
  | { readonly kind: 'jump'; readonly ms: number }
  | { readonly kind: 'rate'; readonly factor: number };

const RATE = /^x(\d+(?:\.\d+)?)$/;

/** Parses `+10s`, `-500ms`, `+1.5m` (jumps) and `x2`, `x0.5`, `x1` (rates). */
export function parseClockChange(text: string): ClockChange {
  const spec = text.trim();
  const rate = RATE.exec(spec);
  if (rate) {
    const factor = Number(rate[1]);
    if (factor <= 0 || factor > 1000) throw new UsageError(`invalid clock rate "${spec}": use x0.01 to x1000 (x1 is real speed)`);
    return { kind: 'rate', factor };
  }
  if (spec.startsWith('+') || spec.startsWith('-')) {
    const ms = parseDuration(spec.slice(1), 'clock jump');
    return { kind: 'jump', ms: spec.startsWith('-') ? -ms : ms };
  }
  throw new UsageError(`invalid clock change "${spec}": use +10s / -2s to jump the node's clock or x2 to run it fast`);
}

export function describeClockChange(change: ClockChange): string {
  if (change.kind === 'rate') return `x${change.factor}`;
  return `${change.ms < 0 ? '-' : '+'}${formatDuration(Math.abs(change.ms))}`;
}

/** Where a node's timestamp file is, relative to its working directory (its node dir). */
export const NODE_CLOCK_FILE = 'faketime';

/**
 * Start options with every redis node under libfaketime, so `clock` can jump any of them. Each
 * node's timestamp file is relative, so it lands in the node's own directory (its cwd), and is
 * only written by the first clock change: until then the node runs on real time. Unchanged
 * (with the reason) where libfaketime or a C compiler is missing: `clock` then rewrites TTLs.
 */
export async function withFakeClocks(
  opts: StartOptions,
  env: Readonly<Record<string, string | undefined>> = opts.env ?? process.env,
): Promise<{ readonly options: StartOptions; readonly support: ClockSupport }> {
  const support = detectClockSupport({ path: env.PATH ?? '' });
  if (support.method !== 'faketime') return { options: opts, support };
  // The shim outlives sandboxes: their directories are wiped on start, and restarts need it.
  const clockEnv = await fakeClockEnv({ timestampFile: NODE_CLOCK_FILE, shimDir: join(stateDir(env), 'faketime'), support });
  const redisNodes = planTopology(opts.topology, { nodes: opts.nodes, replicas: opts.replicas }).filter((n) => n.role !== 'sentinel');
  const nodeEnv = Object.fromEntries(redisNodes.map((n) => [n.name, { ...clockEnv, ...opts.nodeEnv?.[n.name] }]));
  return { options: { ...opts, nodeEnv: { ...opts.nodeEnv, ...nodeEnv } }, support };
}

/** A node as the clock verb sees it. */
export interface ClockNode {
  readonly name: string;
  readonly client: CommandRunner;
  /** Its FAKETIME_TIMESTAMP_FILE, when it was started with fakeClockEnv (see fakeClockFile). */
  readonly fakeClock?: string | undefined;
  /** Why the node runs without libfaketime, for the report (e.g. the detection's reason). */
  readonly fallbackReason?: string | undefined;
}

export interface ClockReport {
  readonly node: string;
  readonly method: ClockMethod;
  readonly change: ClockChange;
  /** faketime: the node's wall clock minus real time now; ttl-rewrite: the jump applied to TTLs. */
  readonly skewMs: number;
  readonly rate: number;
  /** ttl-rewrite only: what the Lua pass did to the keyspace. */
  readonly ttls?: TtlRewrite;
  /** One line for the user, naming the method. */
  readonly message: string;
}

/** Applies a clock change to one node, through libfaketime when it runs under it, else by rewriting TTLs. */
export async function shiftClock(node: ClockNode, change: ClockChange): Promise<ClockReport> {
  const what = `clock ${describeClockChange(change)} on ${node.name}`;
  if (node.fakeClock) {
    const reading = await shiftFakeClock(
      node.fakeClock,
      node.client,
      change.kind === 'jump' ? { jumpMs: change.ms } : { rate: change.factor },
    );
    const skew = `${reading.skewMs < 0 ? '-' : '+'}${formatDuration(Math.abs(reading.skewMs))}`;
    return {
      node: node.name,
      method: 'faketime',
      change,
      ...reading,
      message: `${what} via libfaketime: its wall clock is now ${skew} off real time, running x${reading.rate}`,
    };
  }
  const why = node.fallbackReason ? ` (${node.fallbackReason})` : '';
  if (change.kind === 'rate') {
    throw new UsageError(`${what}: a clock rate needs libfaketime${why}; the TTL-rewrite emulation only does jumps (+10s)`);
  }
  const ttls = await rewriteTtls(node.client, change.ms);
  return {
    node: node.name,
    method: 'ttl-rewrite',
    change,
    skewMs: change.ms,
    rate: 1,
    ttls,
    message: `${what} emulated by rewriting TTLs${why}: ${ttls.keys} key(s) with a TTL moved, ${ttls.expired} expired now`,
  };
}
