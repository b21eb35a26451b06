import { afterEach, expect } from 'vitest';
import { type RedisFixture, useBackgroundRuns, useRedisServer } from '../helpers/fixture.js';
import { startPeer, stopAllPeers, type PeerEvent, type PeerKind } from '../helpers/redisson-peer.js';
import { runCli, tempStateEnv, type CliResult } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';

// What every Redisson (Java) interop file shares: its own redis-server, our CLI run in-process
// against it, and clean-up that stops every JVM and every hold a test left running.

/**
 * Our waiters' and holds' fallback: the lease the other side holds with. A wake-up far below it
 * can only have come from the unlock message, also on a busy machine.
 */
export const LONG_LEASE_MS = 60_000;
/** "Promptly": generous against a loaded 2-core box, a small fraction of the fallback above. */
export const PROMPT_MS = 8000;

export interface InteropServer extends RedisFixture {
  /** One CLI command against this server (`-u` added), in-process. */
  cli(...args: string[]): Promise<CliResult>;
  /** A CLI command left running in-process; abort() interrupts it as Ctrl-C does. */
  background(...args: string[]): Background;
  /** `hold ... --json` in the background; `waitFor` resolves on its event line. */
  hold(...args: string[]): Background & { waitFor(event: string): Promise<void> };
  /** Resolves once `channel` has `count` subscribers (a waiter of either side is listening). */
  subscribed(channel: string, count?: number): Promise<void>;
  /** Resolves once `count` channels matching `pattern` have subscribers (fair waiters: one channel each). */
  channels(pattern: string, count: number): Promise<void>;
  /** How many clients are connected now: a JVM that connected shows up here before it first tries. */
  clients(): Promise<number>;
  /** Resolves once the LIST `key` (a fair queue) has `count` entries. */
  queued(key: string, count: number): Promise<void>;
  /**
   * The peer's blocking `hold KIND NAME 200` waits behind a lock we hold; once `listening` resolves
   * (its subscription is seen), `wake` runs our side, and the peer must acquire promptly after it.
   */
  peerWokenBy(kind: PeerKind, name: string, listening: () => Promise<void>, wake: () => Promise<void>): Promise<void>;
  /**
   * The peer holds KIND NAME (60 s watchdog lease) and our command `ours` waits for it; once
   * `listening` resolves, the peer unlocks (SIGTERM) and our command must succeed promptly after.
   */
  ourWaiterWokenBy(kind: PeerKind, name: string, listening: () => Promise<void>, ours: readonly string[]): Promise<CliResult>;
}

export interface Background {
  readonly done: Promise<CliResult>;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  abort(): void;
}

/** Registers the file's server and clean-up hooks; use the returned object inside tests. */
export function useInteropServer(): InteropServer {
  const stateEnv = tempStateEnv();
  const fx = useRedisServer({ flushEachTest: true });
  afterEach(async () => {
    await stopAllPeers();
  });
  // Registered after the peers' hook, so it runs first: our runs are interrupted, then the JVMs stopped.
  const runs = useBackgroundRuns();

  const url = (): string => fx.server.url;
  return {
    get server() {
      return fx.server;
    },
    get raw() {
      return fx.raw;
    },
    cli: (...args) => runCli([...args, '-u', url()], stateEnv),
    background(...args) {
      let out = '';
      const { done, interrupt } = runs.start((signal) => runCli([...args, '-u', url()], stateEnv, signal, (t) => (out += t)));
      return { done, output: () => out, abort: interrupt };
    },
    hold(...args) {
      const held = this.background('hold', '--json', ...args);
      const sawEvent = (event: string): boolean =>
        held.output().split('\n').some((l) => l.startsWith('{') && (JSON.parse(l) as { event: string }).event === event);
      return { ...held, waitFor: (event) => eventually(async () => sawEvent(event), 15_000) };
    },
    subscribed: (channel, count = 1) =>
      eventually(async () => {
        const reply = (await fx.raw.call('pubsub', 'numsub', channel)) as [string, number];
        return Number(reply[1]) >= count;
      }, 15_000),
    channels: (pattern, count) =>
      eventually(async () => ((await fx.raw.call('pubsub', 'channels', pattern)) as string[]).length >= count, 15_000),
    clients: async () => ((await fx.raw.call('client', 'list')) as string).trim().split('\n').length,
    queued: (key, count) => eventually(async () => (await fx.raw.llen(key)) >= count, 15_000),
    async peerWokenBy(kind, name, listening, wake) {
      const peer = startPeer(fx.server.port, ['hold', kind, name, '200']);
      await listening();
      await settle();
      const wokenAt = Date.now();
      await wake();
      expectPromptAfter(await peer.waitFor('acquired'), wokenAt);
      expect(await peer.exited).toBe(0);
    },
    async ourWaiterWokenBy(kind, name, listening, ours) {
      const peer = startPeer(fx.server.port, ['hold', kind, name, String(LONG_LEASE_MS)], { watchdogMs: LONG_LEASE_MS });
      await peer.waitFor('acquired');
      const waiting = this.cli(...ours);
      await listening();
      await settle();
      await peer.stop();
      const released = await peer.waitFor('released');
      const result = await waiting;
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expectPromptAfter(Date.now(), released.t);
      return result;
    },
  };
}

/** The JSON a `--json` command printed. */
export function jsonOf<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}${result.stderr}`);
  }
}

/** The peer woke within PROMPT_MS of `sinceMs` and not before it: the order and a generous bound. */
export function expectPromptAfter(event: PeerEvent | number, sinceMs: number): void {
  const at = typeof event === 'number' ? event : event.t;
  expect(at).toBeGreaterThanOrEqual(sinceMs - 5); // same machine clock; a few ms of rounding
  expect(at - sinceMs).toBeLessThan(PROMPT_MS);
}

/** A moment for a just-subscribed waiter to finish its retry and block on the message (not a timing assertion). */
export const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 300));
