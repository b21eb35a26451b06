import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { ensureBuilt } from './build.js';
import { killStartedClis } from './cli-process.js';
import { rawClient, testEnv } from './lock-env.js';
import { startRedis, type RedisServer } from './redis-server.js';
import { startCluster, type Topology } from './topologies.js';

// The set-ups test files share, each registered as vitest hooks by one call at the top of a file.
// Hooks that tear down run in reverse order of registration (vitest's default "stack" order), so
// what a file registers after calling one of these is torn down before the server goes.

export interface RedisFixture {
  readonly server: RedisServer;
  /** A plain client for arranging and asserting raw state (never the code under test). */
  readonly raw: Redis;
}

export interface RedisFixtureOptions {
  /** FLUSHALL before every test, so each starts from an empty keyspace. */
  readonly flushEachTest?: boolean;
  /** The file runs the built CLI as processes: build first when dist is stale, SIGKILL the ones left running at the end. */
  readonly builtCli?: boolean;
}

/** One redis-server for the whole test file and a raw client on it; both stopped in afterAll, also when tests fail. */
export function useRedisServer(opts: RedisFixtureOptions = {}): RedisFixture {
  const fx = {} as { server: RedisServer; raw: Redis };
  // A build on a busy machine takes longer than the default hook timeout.
  beforeAll(
    async () => {
      if (opts.builtCli) ensureBuilt();
      fx.server = await startRedis();
      fx.raw = rawClient(fx.server);
    },
    opts.builtCli ? 60_000 : undefined,
  );
  afterAll(async () => {
    if (opts.builtCli) killStartedClis();
    fx.raw?.disconnect();
    await fx.server?.stop();
  });
  if (opts.flushEachTest) {
    beforeEach(async () => {
      await fx.raw.flushall();
    });
  }
  return fx;
}

export interface LockServerFixture extends RedisFixture {
  /** The lock environment under test (long-lived connection). */
  readonly env: OpenLockEnv;
}

/**
 * One redis-server for the whole test file, a lock environment and a raw client on it, and an
 * empty keyspace before every test. Everything is stopped in afterAll, also when tests fail.
 */
export function useLockServer(): LockServerFixture {
  const base = useRedisServer({ flushEachTest: true });
  const fx = {} as { env: OpenLockEnv };
  beforeAll(async () => {
    fx.env = await testEnv(base.server);
  });
  afterAll(async () => {
    await fx.env?.close();
  });
  return {
    get server() {
      return base.server;
    },
    get raw() {
      return base.raw;
    },
    get env() {
      return fx.env;
    },
  };
}

export interface BackgroundRun<T> {
  readonly done: Promise<T>;
  /** Interrupts the run as Ctrl-C does. */
  interrupt(): void;
}

export interface BackgroundRuns {
  /** Starts `start(signal)`: a command run in-process that keeps going (a watch, a hold) until its signal aborts. */
  start<T>(start: (signal: AbortSignal) => Promise<T>): BackgroundRun<T>;
}

/** In-process runs a test leaves going: after every test each is interrupted (SIGTERM) and awaited, so a failed test leaves none behind. */
export function useBackgroundRuns(): BackgroundRuns {
  const controllers: AbortController[] = [];
  const pending: Promise<unknown>[] = [];
  afterEach(async () => {
    for (const c of controllers.splice(0)) c.abort('SIGTERM');
    await Promise.allSettled(pending.splice(0));
  });
  return {
    start(start) {
      const controller = new AbortController();
      controllers.push(controller);
      const done = start(controller.signal);
      pending.push(done);
      return { done, interrupt: () => controller.abort('SIGINT') };
    },
  };
}

export interface ClusterFixture {
  readonly cluster: Topology;
  /** A one-shot lock environment on the Cluster, every node given as a seed. */
  readonly env: OpenLockEnv;
  /** The nodes as `--cluster` takes them: `127.0.0.1:port,...`. */
  readonly seeds: string;
}

/** A three-primary Cluster for the whole test file (startCluster) and a lock environment on it; stopped in afterAll. */
export function useClusterLockEnv(): ClusterFixture {
  const fx = {} as { cluster: Topology; env: OpenLockEnv; seeds: string };
  beforeAll(async () => {
    fx.cluster = await startCluster();
    const nodes = fx.cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
    fx.seeds = nodes.map((n) => `${n.host}:${n.port}`).join(',');
    fx.env = await openLockEnv(
      { ...parseEndpointUrl(`redis://127.0.0.1:${nodes[0]!.port}`), clusterNodes: nodes },
      { mode: 'one-shot', pubsub: 'auto' },
    );
  }, 30_000);
  afterAll(async () => {
    await fx.env?.close();
    await fx.cluster?.stop();
  });
  return fx;
}
