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
import os from 'node:os';
import { percentiles } from '../src/core/race/stats.js';
import type { TraceEvent } from '../src/core/trace/events.js';
import { findingLine } from '../src/core/trace/format.js';
import { TraceSession } from '../src/core/trace/session.js';
import type { TraceSourceKind } from '../src/trace/feed.js';
import { TraceSource } from '../src/trace/source.js';
import { startRedis, type RedisServer } from '../test/helpers/redis-server.js';
import { lockLoad } from './lock-load.js';

const SECONDS = Number(process.env.BENCH_TRACE_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_TRACE_RATE ?? 20_000);
const ALL_OUT_SECONDS = Number(process.env.BENCH_TRACE_ALL_OUT_SECONDS ?? 5);
const CONNECTIONS = 8;
const KEYS = 64;
const load = (server: RedisServer, rate: number, seconds: number) => lockLoad(server.port, { rate, seconds, connections: CONNECTIONS, keys: KEYS });

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
