// Acquire+release throughput of every lock kind, next to node-redlock and node-redisson, on the
// same redis-server in the same run (ratios matter: this 2-core machine is shared and noisy).
// Ours and its peer (token / node-redlock, reentrant / node-redisson, redlock / node-redlock x3)
// take turns in short slices within one cell, so load that comes and goes falls on both alike.
// Our locks run from the build (dist/), the code users run: tsx's transform would wrap every
// closure in a naming helper that the peers, loaded from node_modules, never pay.
//   npm run bench            (BENCH_SECONDS=3 per measurement, BENCH_CONTENDERS=16, BENCH_SLICE_MS=250,
//                             BENCH_ONLY=a,b)
import { parseEndpointUrl } from '../src/core/endpoint.js';
import { Redis } from 'ioredis';
import RedlockModule from 'redlock';
import { Redisson } from 'node-redisson';
import { TimeUnit } from 'node-redisson/dist/utils/TimeUnit.js';
import type { OpenLockEnv } from '../src/locks/env.js';
import type { LockKind } from '../src/locks/types.js';
import { ensureBuilt } from '../test/helpers/build.js';
import { startRedis, type RedisServer } from '../test/helpers/redis-server.js';

ensureBuilt();
const built = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href) as Promise<T>;
const { openLockEnv } = await built<typeof import('../src/locks/env.js')>('locks/env.js');
const { newOwner } = await built<typeof import('../src/locks/owners.js')>('locks/owners.js');
const { protocolFor } = await built<typeof import('../src/locks/registry.js')>('locks/registry.js');
const { LOCK_KINDS } = await built<typeof import('../src/locks/types.js')>('locks/types.js');

// tsx loads redlock's CommonJS build, where the class sits on `.default`.
const Redlock = ((RedlockModule as unknown as { default?: typeof RedlockModule }).default ?? RedlockModule) as typeof RedlockModule;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONTENDERS = Number(process.env.BENCH_CONTENDERS ?? 16);
const SLICE_MS = Math.max(50, Number(process.env.BENCH_SLICE_MS ?? 250));
const LEASE_MS = 10_000;
/** Comma-separated subject names to run (default: all), e.g. BENCH_ONLY=token,node-redlock */
const ONLY = process.env.BENCH_ONLY?.split(',');

/** One client loop: take the lock (waiting as its library does when contended), release it. */
interface Loop {
  /** False when the lock was not acquired (counted, not fatal: a peer's bug must not stop the run). */
  cycle(contended: boolean): Promise<boolean>;
  close(): Promise<void>;
}

/** Round trips sent by the clients under test (pub/sub connections not included). */
let roundTrips = 0;
function countRoundTrips<T extends { sendCommand: (...a: never[]) => unknown }>(client: T): T {
  const send = client.sendCommand.bind(client) as (...a: never[]) => unknown;
  (client as { sendCommand: unknown }).sendCommand = (...args: never[]) => {
    roundTrips += 1;
    return send(...args);
  };
  return client;
}
type Subject = { readonly name: string; readonly loop: (key: string) => Promise<Loop> };

function ourKind(kind: LockKind, servers: RedisServer[]): Subject {
  return {
    name: kind,
    loop: async (key) => {
      const nodes = kind === 'redlock' ? servers.map((s) => parseEndpointUrl(s.url)) : undefined;
      const env: OpenLockEnv = await openLockEnv(parseEndpointUrl(servers[0]!.url), { mode: 'long-lived', pubsub: 'plain', nodes });
      for (const conn of env.nodes.length > 0 ? env.nodes : [env.conn]) countRoundTrips(conn.client as Redis);
      const protocol = protocolFor(kind);
      const req = { key, owner: newOwner(protocol), leaseMs: LEASE_MS };
      return {
        async cycle(contended) {
          const attempt = contended ? await protocol.acquire(env, req, { waitMs: 60_000 }) : await protocol.tryAcquire(env, req);
          if (!attempt.acquired) return false;
          await protocol.release(env, req);
          return true;
        },
        close: () => env.close(),
      };
    },
  };
}

function nodeRedlock(servers: RedisServer[], label: string): Subject {
  return {
    name: label,
    loop: async (key) => {
      const clients = servers.map((s) => countRoundTrips(new Redis({ port: s.port, host: '127.0.0.1' })));
      // node-redlock's own waiting: retries every 200 ms + up to 200 ms jitter (its defaults).
      const redlock = new Redlock(clients, { retryCount: 1000 });
      return {
        async cycle(contended) {
          const lock = await redlock.acquire([key], LEASE_MS, contended ? {} : { retryCount: 0 }).catch(() => undefined);
          if (!lock) return false;
          await lock.release();
          return true;
        },
        close: async () => clients.forEach((c) => c.disconnect()),
      };
    },
  };
}

function nodeRedisson(server: RedisServer): Subject {
  return {
    name: 'node-redisson',
    loop: async (key) => {
      const redisson = new Redisson({ redis: { options: { host: '127.0.0.1', port: server.port } } });
      countRoundTrips(redisson.redis as unknown as Redis);
      // Its unsubscribe timers can fire after quit(); keep those resets out of the report.
      const executor = (redisson as unknown as { commandExecutor: { redis: Redis; subscribeRedis: Redis } }).commandExecutor;
      for (const c of [executor.redis, executor.subscribeRedis]) c.on('error', () => undefined);
      const lock = redisson.getLock(key);
      return {
        async cycle(contended) {
          if (!(await lock.tryLock(contended ? 60_000 : 0, LEASE_MS, TimeUnit.MILLISECONDS))) return false;
          await lock.unlock();
          return true;
        },
        close: () => redisson.quit(),
      };
    },
  };
}

async function commandsProcessed(server: RedisServer): Promise<number> {
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  const info = await client.info('stats');
  client.disconnect();
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? NaN);
}

interface Result {
  readonly cyclesPerSec: number;
  readonly p50: number;
  readonly p99: number;
  /** Jain's fairness index over per-loop cycle counts (1 = perfectly even). */
  readonly fairness: number;
  /** Commands Redis executed per cycle, those inside scripts included: the load on the server. */
  readonly commandsPerCycle: number;
  readonly roundTripsPerCycle: number;
  readonly failed: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/** One subject's loops, opened once and run in slices that alternate with its peers' slices. */
class Cell {
  private readonly counts: number[];
  private readonly latencies: number[] = [];
  private failed = 0;
  private elapsedMs = 0;
  private commands = 0;
  private trips = 0;

  private constructor(
    readonly subject: Subject,
    private readonly loops: readonly Loop[],
    private readonly server: RedisServer,
  ) {
    this.counts = new Array<number>(loops.length).fill(0);
  }

  static async open(subject: Subject, loops: number, server: RedisServer): Promise<Cell> {
    const key = `bench:${subject.name}:${loops}`;
    return new Cell(subject, await Promise.all(Array.from({ length: loops }, () => subject.loop(key))), server);
  }

  get ranMs(): number {
    return this.elapsedMs;
  }

  /** Every loop cycles until `ms` have passed (a cycle under way finishes: its wait counts). */
  async slice(ms: number): Promise<void> {
    const contended = this.loops.length > 1;
    const before = await commandsProcessed(this.server);
    const tripsBefore = roundTrips;
    const started = performance.now();
    const deadline = started + ms;
    await Promise.all(
      this.loops.map(async (loop, i) => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          if (!(await loop.cycle(contended))) {
            this.failed += 1;
            continue;
          }
          this.latencies.push(performance.now() - t0);
          this.counts[i]! += 1;
        }
      }),
    );
    this.elapsedMs += performance.now() - started;
    this.trips += roundTrips - tripsBefore;
    // One INFO call sits between the two readings.
    this.commands += (await commandsProcessed(this.server)) - before - 1;
  }

  async close(): Promise<Result> {
    await Promise.all(this.loops.map((c) => c.close()));
    const total = this.counts.reduce((a, b) => a + b, 0);
    const sumSq = this.counts.reduce((a, b) => a + b * b, 0);
    const latencies = [...this.latencies].sort((a, b) => a - b);
    return {
      cyclesPerSec: total / (this.elapsedMs / 1000),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      fairness: sumSq === 0 ? 0 : (total * total) / (this.loops.length * sumSq),
      commandsPerCycle: this.commands / total,
      roundTripsPerCycle: this.trips / total,
      failed: this.failed,
    };
  }
}

/**
 * Runs the subjects side by side: their loops take turns in slices of SLICE_MS until each has run
 * SECONDS, the first of each turn rotating, so load that comes and goes on a shared machine falls
 * on each of them alike.
 */
async function interleaved(subjects: readonly Subject[], loops: number, probe: (s: Subject) => RedisServer): Promise<Result[]> {
  const cells = [];
  for (const subject of subjects) cells.push(await Cell.open(subject, loops, probe(subject)));
  for (let turn = 0; cells.some((c) => c.ranMs < SECONDS * 1000); turn++) {
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[(i + turn) % cells.length]!;
      if (cell.ranMs < SECONDS * 1000) await cell.slice(SLICE_MS);
    }
  }
  const results = [];
  for (const cell of cells) results.push(await cell.close());
  return results;
}

// Ours next to the peer it must keep up with: measured interleaved, with a ratio line under the table.
const PAIRS: readonly (readonly [string, string])[] = [
  ['token', 'node-redlock'],
  ['reentrant', 'node-redisson'],
  ['redlock', 'node-redlock x3'],
];

async function main(): Promise<void> {
  const servers = await Promise.all([startRedis(), startRedis(), startRedis()]);
  const [main] = servers as [RedisServer, ...RedisServer[]];
  try {
    const subjects: Subject[] = [
      ...LOCK_KINDS.filter((k) => k !== 'redlock').map((k) => ourKind(k, [main])),
      nodeRedlock([main], 'node-redlock'),
      nodeRedisson(main),
      ourKind('redlock', servers),
      nodeRedlock(servers, 'node-redlock x3'),
    ].filter((s) => !ONLY || ONLY.includes(s.name));
    // A pair runs interleaved; every other subject on its own (still in slices).
    const groups: Subject[][] = [];
    const paired = new Set<string>();
    for (const [ours, peer] of PAIRS) {
      const pair = subjects.filter((s) => s.name === ours || s.name === peer);
      if (pair.length === 2) pair.forEach((s) => paired.add(s.name));
      if (pair.length === 2) groups.push(pair);
    }
    for (const s of subjects) if (!paired.has(s.name)) groups.unshift([s]);
    const probe = (s: Subject): RedisServer => (s.name.endsWith('x3') || s.name === 'redlock' ? servers[0]! : main);
    console.log(
      `redis-server ${servers.map((s) => s.port).join(', ')}; ${SECONDS} s per cell in ${SLICE_MS} ms slices, pairs interleaved; ${CONTENDERS} contending loops\n`,
    );
    const table = new Map<string, { one: Result; many: Result }>();
    for (const group of groups) {
      const ones = await interleaved(group, 1, probe);
      const manys = await interleaved(group, CONTENDERS, probe);
      group.forEach((s, i) => table.set(s.name, { one: ones[i]!, many: manys[i]! }));
    }
    console.log(`| lock | 1 loop: cycles/s | round trips/cycle | Redis cmds/cycle | p99 ms | ${CONTENDERS} loops: cycles/s | p50 wait ms | p99 wait ms | fairness | not acquired |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const s of subjects) {
      const { one, many } = table.get(s.name)!;
      console.log(
        `| ${s.name} | ${one.cyclesPerSec.toFixed(0)} | ${one.roundTripsPerCycle.toFixed(2)} | ${one.commandsPerCycle.toFixed(1)} | ${one.p99.toFixed(2)} | ${many.cyclesPerSec.toFixed(0)} | ${many.p50.toFixed(1)} | ${many.p99.toFixed(1)} | ${many.fairness.toFixed(2)} | ${one.failed + many.failed} |`,
      );
    }
    for (const [ours, peer] of PAIRS) {
      const a = table.get(ours);
      const b = table.get(peer);
      if (!a || !b) continue;
      console.log(
        `${ours} / ${peer}: 1 loop ${(a.one.cyclesPerSec / b.one.cyclesPerSec).toFixed(2)}x, ${CONTENDERS} loops ${(a.many.cyclesPerSec / b.many.cyclesPerSec).toFixed(2)}x cycles/s; p99 wait ${a.many.p99.toFixed(1)} vs ${b.many.p99.toFixed(1)} ms`,
      );
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

await main();
