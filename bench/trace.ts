// `trace` as a benchmark, on one redis-server: (1) the server's lock throughput with and without
// a trace attached (MONITOR's cost, all-out load), and whether the trace keeps up at that all-out
// rate: its lag, what it decoded, and how long after the load it had caught up; the same with
// the keyspace-notification source instead (notifications on, each write read back); (2) a
// paced load of BENCH_TRACE_RATE lock operations per second for BENCH_TRACE_SECONDS while the
// trace decodes and diagnoses them: how far it lags the server (receive time minus the server's
// timestamp, sampled every second) and its heap, sampled over the run, to show it neither falls
// behind nor grows.
// The load runs in its own process (ioredis, token locks: SET NX PX, then a compare-and-delete
// EVALSHA), so it does not share an event loop with the trace.
//   npm run bench     (BENCH_TRACE_SECONDS=30, BENCH_TRACE_RATE=20000; docs/performance.md's ten-minute run used 600)
import { parseEndpointUrl } from '../src/core/endpoint.js';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { percentiles } from '../src/core/race/stats.js';
import type { TraceEvent } from '../src/core/trace/events.js';
import { findingLine } from '../src/core/trace/format.js';
import { TraceSession } from '../src/core/trace/session.js';
import type { TraceSourceKind } from '../src/trace/feed.js';
import { TraceSource } from '../src/trace/source.js';
import { startRedis, type RedisServer } from '../test/helpers/redis-server.js';

const SECONDS = Number(process.env.BENCH_TRACE_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_TRACE_RATE ?? 20_000);
const ALL_OUT_SECONDS = Number(process.env.BENCH_TRACE_ALL_OUT_SECONDS ?? 5);
const CONNECTIONS = 8;
const KEYS = 64;

// The load: CONNECTIONS connections, each sending batches of acquire + release pairs on its own
// keys; paced to `rate` lock operations per second (0: as fast as the server answers).
const LOAD = `
import { Redis } from 'ioredis';
const [port, rate, seconds, conns, keys] = process.argv.slice(1).map(Number);
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const BATCH = 25;
let ops = 0;
const until = Date.now() + seconds * 1000;
const clients = Array.from({ length: conns }, () => new Redis({ port, host: '127.0.0.1' }));
const sha = await clients[0].script('LOAD', RELEASE);
const timer = setInterval(() => process.stdout.write(JSON.stringify({ ops }) + '\\n'), 1000);
await Promise.all(clients.map(async (c, ci) => {
  const perConn = rate / conns;
  const start = Date.now();
  let sent = 0;
  for (let n = 0; Date.now() < until; n++) {
    const p = c.pipeline();
    for (let i = 0; i < BATCH; i++) {
      const key = 'bench:trace:' + ((ci * BATCH + i) % keys);
      const token = ci + '-' + n + '-' + i;
      p.set(key, token, 'PX', 10000, 'NX');
      p.evalsha(sha, 1, key, token);
    }
    await p.exec();
    ops += BATCH * 2;
    sent += BATCH * 2;
    if (rate > 0) {
      const due = start + (sent / perConn) * 1000;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
}));
clearInterval(timer);
process.stdout.write(JSON.stringify({ ops, done: true }) + '\\n');
for (const c of clients) c.disconnect();
`;

/** Runs the load; resolves with the lock operations it completed and its per-second counts. */
function load(server: RedisServer, rate: number, seconds: number): Promise<{ ops: number; perSecond: number[] }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', LOAD, String(server.port), String(rate), String(seconds), String(CONNECTIONS), String(KEYS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { ops: number; done?: boolean });
      const last = lines.at(-1);
      if (code !== 0 || !last?.done) return reject(new Error(`load exited ${code}`));
      const perSecond = lines.slice(0, -1).map((l, i, all) => l.ops - (all[i - 1]?.ops ?? 0));
      resolve({ ops: last.ops, perSecond });
    });
  });
}

/** `decoded`: outcomes (acquired, released, ...); attempts come on top, one before each acquisition. */
async function attach(server: RedisServer, session: TraceSession, count = { decoded: 0 }, source: TraceSourceKind = 'monitor'): Promise<TraceSource> {
  const onEvents = (events: readonly TraceEvent[]) => {
    session.push(events);
    for (const e of events) if (e.kind !== 'attempt') count.decoded++;
  };
  const trace = new TraceSource({ spec: parseEndpointUrl(server.url), wants: () => true, onStatus: () => undefined, onEvents, source, enableNotifications: true });
  await trace.start();
  return trace;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
/** How long a trace may take to decode its backlog once the load has stopped. */
const DRAIN_LIMIT_MS = 60_000;

interface TracedRun {
  readonly result: { readonly ops: number; readonly perSecond: number[] };
  readonly session: TraceSession;
  /** Outcomes decoded (attempts not counted). */
  readonly decoded: number;
  /** Lag behind the server, sampled every second while the load ran. */
  readonly lags: number[];
  readonly heap: number[];
  /** From the end of the load until every operation was decoded (or DRAIN_LIMIT_MS). */
  readonly drainMs: number;
}

/** A load of `rate` ops/s (0: all-out) with a MONITOR trace attached, sampled every second. */
async function tracedLoad(server: RedisServer, rate: number, seconds: number): Promise<TracedRun> {
  const session = new TraceSession();
  const count = { decoded: 0 };
  const trace = await attach(server, session, count);
  const lags: number[] = [];
  const heap: number[] = [];
  const sampler = setInterval(() => {
    lags.push(trace.stats.lagMs);
    heap.push(process.memoryUsage().heapUsed);
  }, 1000);
  const result = await load(server, rate, seconds);
  clearInterval(sampler);
  const ended = Date.now();
  while (count.decoded < result.ops && Date.now() - ended < DRAIN_LIMIT_MS) await new Promise((r) => setTimeout(r, 20));
  const drainMs = Date.now() - ended;
  await trace.stop();
  return { result, session, decoded: count.decoded, lags, heap, drainMs };
}

const lagText = (lags: readonly number[]) => {
  const lag = percentiles(lags);
  return `p50 ${Math.round(lag.p50)} ms, p99 ${Math.round(lag.p99)} ms, max ${Math.round(lag.max)} ms`;
};
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

async function main(): Promise<void> {
  const server = await startRedis();
  try {
    console.log(`trace bench: redis-server on ${server.port}, ${CONNECTIONS} connections, ${KEYS} keys, token locks (SET NX PX + EVALSHA release)`);
    const bare = await load(server, 0, ALL_OUT_SECONDS);
    const allOut = await tracedLoad(server, 0, ALL_OUT_SECONDS);
    const withTrace = allOut.result;
    const rate = (r: { ops: number }) => Math.round(r.ops / ALL_OUT_SECONDS);
    console.log(`server throughput, all-out for ${ALL_OUT_SECONDS} s: ${rate(bare)} lock ops/s without trace, ${rate(withTrace)} with trace attached (${Math.round((1 - rate(withTrace) / rate(bare)) * 100)} % less)`);
    console.log(
      `trace at that all-out rate: lag ${lagText(allOut.lags)}; decoded ${allOut.decoded} of ${withTrace.ops} operations, ` +
        `all of them ${allOut.drainMs} ms after the load stopped${allOut.decoded < withTrace.ops ? ` (NOT all: gave up after ${DRAIN_LIMIT_MS / 1000} s)` : ''}; load average ${loadAverage()}`,
    );

    const { result, session, lags, heap, decoded } = await tracedLoad(server, RATE, SECONDS);
    const achieved = percentiles(result.perSecond);
    // Heap after the first tenth (warm-up) against the last tenth of the run.
    const tenth = Math.max(1, Math.floor(heap.length / 10));
    const early = percentiles(heap.slice(tenth, 2 * tenth)).p50;
    const late = percentiles(heap.slice(-tenth)).p50;
    console.log(`paced load, ${SECONDS} s at ${RATE} lock ops/s: the load reached p50 ${achieved.p50} ops/s; trace decoded ${decoded} outcomes (and ${session.events - decoded} attempts) of ${result.ops} operations`);
    console.log(`trace lag behind the server: ${lagText(lags)}`);
    console.log(`trace heap: ${mb(early)} early in the run, ${mb(late)} at the end (${mb(Math.max(...heap))} max); findings: ${session.findings.length}`);
    for (const f of session.findings.slice(0, 5)) console.log(`  ${findingLine(f)}`);
    // Last, so its backlog does not weigh on the heap figures above; against a fresh bare run.
    const bareAgain = await load(server, 0, ALL_OUT_SECONDS);
    const keyspace = await attach(server, new TraceSession(), undefined, 'keyspace');
    const withKeyspace = await load(server, 0, ALL_OUT_SECONDS);
    await keyspace.stop();
    const lessThan = (r: { ops: number }, base: { ops: number }) => `${Math.round((1 - rate(r) / rate(base)) * 100)} % less`;
    console.log(`keyspace-notification source, all-out for ${ALL_OUT_SECONDS} s: ${rate(bareAgain)} lock ops/s without trace, ${rate(withKeyspace)} with it attached (${lessThan(withKeyspace, bareAgain)})`);
    console.log(`machine load average at the end (1, 5, 15 min): ${loadAverage()} on ${os.cpus().length} cores`);
  } finally {
    await server.stop();
  }
}

await main();
