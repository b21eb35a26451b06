// The race harness as a benchmark: in one run on one redis-server, our token and reentrant locks
// next to node-redlock and node-redisson, all driven by the same client loop (acquisitions/s,
// p99 wait, Jain's fairness); then the harness check, 1,000 clients on one key for 10 s, with
// the harness's own CPU share and event-loop delay.
//   npm run bench     (BENCH_RACE_SECONDS=10, BENCH_RACE_CLIENTS=16, BENCH_RACE_ONLY=a,b)
import { parseEndpointUrl } from '../src/core/endpoint.js';
import { Redis } from 'ioredis';
import RedlockModule, { type Lock } from 'redlock';
import { Redisson } from 'node-redisson';
import { TimeUnit } from 'node-redisson/dist/utils/TimeUnit.js';
import { checkRacePlan, type RaceInput } from '../src/core/race/plan.js';
import { formatWait } from '../src/core/race/stats.js';
import { runRace, type RaceResult } from '../src/race/run.js';
import type { Grant, LockSession, SessionFactory } from '../src/race/session.js';
import { startRedis, type RedisServer } from '../test/helpers/redis-server.js';

// tsx loads redlock's CommonJS build, where the class sits on `.default`.
const Redlock = ((RedlockModule as unknown as { default?: typeof RedlockModule }).default ?? RedlockModule) as typeof RedlockModule;

const SECONDS = Number(process.env.BENCH_RACE_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_RACE_CLIENTS ?? 16);
const ONLY = process.env.BENCH_RACE_ONLY?.split(',');
// Long enough that no lease runs out in a bench, so nobody renews and every library does the same work.
const LEASE_MS = 10_000;
const HOLD_MS = 1;
const WAIT_MS = 1000;

/** node-redlock on its own connection per client, retrying as it does by default (200 ms +- 100 ms). */
function nodeRedlockSessions(server: RedisServer): SessionFactory {
  return async (client) => {
    const redis = new Redis({ port: server.port, host: '127.0.0.1' });
    const redlock = new Redlock([redis], { retryCount: Math.ceil(WAIT_MS / 200), retryDelay: 200, retryJitter: 100 });
    redlock.on('error', () => undefined); // "resource locked" on every refused attempt
    let lock: Lock | undefined;
    return session({
      acquire: async () => {
        lock = await redlock.acquire([client.key], LEASE_MS).catch(() => undefined);
        return lock ? { leaseMs: LEASE_MS } : undefined;
      },
      release: async () => ((await lock?.release().then(() => true, () => false)) ? 'released' : 'not-owner'),
      close: async () => void redis.disconnect(),
    });
  };
}

/** node-redisson: one Redisson (command + subscriber connection) per client, tryLock(wait, lease). */
function nodeRedissonSessions(server: RedisServer): SessionFactory {
  return async (client) => {
    const redisson = new Redisson({ redis: { options: { host: '127.0.0.1', port: server.port } } });
    // Its unsubscribe timers can fire after quit(); keep those resets out of the report.
    const executor = (redisson as unknown as { commandExecutor: { redis: Redis; subscribeRedis: Redis } }).commandExecutor;
    for (const c of [executor.redis, executor.subscribeRedis]) c.on('error', () => undefined);
    const lock = redisson.getLock(client.key);
    return session({
      acquire: async (waitMs) => ((await lock.tryLock(waitMs, LEASE_MS, TimeUnit.MILLISECONDS)) ? { leaseMs: LEASE_MS } : undefined),
      release: async () => ((await lock.unlock().then(() => true, () => false)) ? 'released' : 'not-owner'),
      close: () => redisson.quit(),
    });
  };
}

/** Other libraries have no renewals to freeze and nothing to crash in a bench. */
function session(parts: { acquire(waitMs: number): Promise<Grant | undefined>; release(): Promise<string>; close(): Promise<void> }): LockSession {
  return { ...parts, release: async () => ({ outcome: await parts.release() }), freeze: () => undefined, thaw: () => undefined, crash: () => void parts.close() };
}

function input(server: RedisServer, change: Partial<RaceInput>): RaceInput {
  return {
    keys: ['bench:race'],
    kind: 'token',
    clients: CLIENTS,
    procs: 0,
    durationMs: SECONDS * 1000,
    leaseMs: LEASE_MS,
    holdMs: HOLD_MS,
    holdDist: 'fixed',
    waitMs: WAIT_MS,
    release: 'safe',
    renew: false,
    target: { type: 'url', endpoint: parseEndpointUrl(server.url) },
    ...change,
  };
}

async function flush(server: RedisServer): Promise<void> {
  const c = new Redis({ port: server.port, host: '127.0.0.1' });
  await c.flushall();
  c.disconnect();
}

const harness = (r: RaceResult): string =>
  `${r.harness.cpuPct.toFixed(0)}% | ${formatWait(r.harness.loopDelayP99Ms)} | ${formatWait(r.harness.loopDelayMaxMs)} | ${r.harness.serverCpuPct?.toFixed(0) ?? '-'}%`;

// node-redisson's pending unsubscribe and retry timers still send commands after quit(); their
// "Connection is closed." rejections are nobody's to handle. Anything else still stops the bench.
process.on('unhandledRejection', (err) => {
  if (err instanceof Error && err.message === 'Connection is closed.') return;
  throw err;
});

async function main(): Promise<void> {
  const server = await startRedis();
  const env = process.env;
  try {
    console.log(`redis-server ${server.port}; ${SECONDS} s per row; ${CLIENTS} clients on one key, hold ${HOLD_MS} ms, wait ${WAIT_MS} ms, lease ${LEASE_MS / 1000} s\n`);
    console.log('| lock | acquisitions/s | p50 wait | p99 wait | fairness (Jain) | timeouts | violations | harness CPU | loop delay p99 | max | Redis CPU |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const subjects: { name: string; kind: string; sessions?: SessionFactory }[] = [
      { name: 'token (ours)', kind: 'token' },
      { name: 'reentrant (ours)', kind: 'reentrant' },
      { name: 'node-redlock', kind: 'token', sessions: nodeRedlockSessions(server) },
      { name: 'node-redisson', kind: 'reentrant', sessions: nodeRedissonSessions(server) },
    ];
    for (const s of subjects.filter((x) => !ONLY || ONLY.includes(x.name.split(' ')[0]!))) {
      await flush(server);
      const r = await runRace(checkRacePlan(input(server, { kind: s.kind })), { env, sessions: s.sessions });
      const st = r.stats;
      console.log(
        `| ${s.name} | ${st.ratePerSec.toFixed(0)} | ${formatWait(st.waits.p50)} | ${formatWait(st.waits.p99)} | ${st.fairness.toFixed(2)} | ${st.timeouts} | ${r.violations.length} | ${harness(r)} |`,
      );
    }

    console.log(`\n1,000 clients on one key for ${SECONDS} s (lease 200 ms renewed, hold 20 ms, wait 1 s):\n`);
    console.log('| lock | processes | acquisitions/s | p99 wait | timeouts | violations | harness CPU | loop delay p99 | max | busiest worker | worker loop p99 | Redis CPU | kept up |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const [kind, procs] of [['token', 0], ['reentrant', 0], ['token', 2]] as const) {
      if (ONLY && !ONLY.includes(`1000-${kind}-${procs}`) && !ONLY.includes('1000')) continue;
      await flush(server);
      const plan = checkRacePlan(input(server, { kind, clients: 1000, procs, leaseMs: 200, holdMs: 20, renew: true }));
      const r = await runRace(plan, { env });
      const h = r.harness;
      console.log(
        `| ${kind} | ${procs === 0 ? '1' : `1 + ${procs}`} | ${r.stats.ratePerSec.toFixed(0)} | ${formatWait(r.stats.waits.p99)} | ${r.stats.timeouts} | ${r.violations.length} | ${harness(r).split(' | ').slice(0, 3).join(' | ')} | ` +
          `${h.workers > 0 ? `${h.workerCpuPctMax.toFixed(0)}%` : '-'} | ${h.workers > 0 ? formatWait(h.workerLoopDelayP99Ms) : '-'} | ${h.serverCpuPct?.toFixed(0) ?? '-'}% | ${h.keptUp ? 'yes' : `no: ${h.reason?.replace(/^the harness may have been the bottleneck: /, '')}`} |`,
      );
    }
  } finally {
    await server.stop();
  }
}

await main();
