// Inspecting, measured as a user runs it (the built bin/ as a process) on redis-servers this
// script starts on free ports and always stops:
//   (a) `inspect k` end to end against a bare node+ioredis script doing the same reads, and
//       `--version` against `node -e 0`: CPU time of the child and wall time, paired runs,
//       median of BENCH_RUNS (bench/startup.ts);
//   (b) `ls` over 1,000,000 keys holding 10,000 locks, next to `redis-cli --scan` over the same
//       keyspace in the same run (alternating, median of BENCH_LS_RUNS);
//   (c) what `inspect --watch --json` of 100 locks at 1 s sends: commands per second (server
//       INFO commandstats) and round trips per tick (a counting TCP proxy in front of Redis).
//   npx tsx bench/inspect.ts      (BENCH_RUNS=15, BENCH_LS_RUNS=3, BENCH_WATCH_SECONDS=5;
//   BENCH_STARTUP_ONLY=1 runs (a) alone; BENCH_LS_FULL=1 also times `ls --kind not-a-lock`: a full snapshot of every key, no probe)
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, Socket, type Server } from 'node:net';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { ensureBuilt } from '../test/helpers/build.js';
import { startRedis, type RedisServer } from '../test/helpers/redis-server.js';
import { describePair, median, pairedRuns } from './startup.js';

const RUNS = Math.max(15, Number(process.env.BENCH_RUNS ?? 15));
// BENCH_STARTUP_ONLY=1: part (a) alone.
const STARTUP_ONLY = process.env.BENCH_STARTUP_ONLY === '1';
const LS_RUNS = Number(process.env.BENCH_LS_RUNS ?? 3);
const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 5);
const TOTAL_KEYS = 1_000_000;
const BIN = 'bin/redlock-cli.js';
// Other test runs on this machine reconnect to whatever now listens on their old ports: a
// password keeps their writes out of the keyspace we measure.
const PASSWORD = randomBytes(12).toString('hex');
const sh = promisify(execFile);


/** Wall time of a shell command line, output thrown away the same way for every contender. */
async function timed(command: string): Promise<number> {
  const started = performance.now();
  await sh('sh', ['-c', `${command} > /dev/null`], { maxBuffer: 1 << 20 });
  return performance.now() - started;
}

/** Runs the contenders in turn, `runs` rounds, so machine noise hits each of them alike. */
async function alternate(runs: number, commands: Record<string, string>): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) for (const [name, command] of Object.entries(commands)) times[name]!.push(await timed(command));
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

async function oneKey(server: RedisServer): Promise<void> {
  const raw = new Redis({ port: server.port, password: PASSWORD });
  // startRedis runs in /tmp, where a replica of some earlier test may have left a dump.rdb that
  // every new server loads: start from an empty keyspace.
  await raw.flushall();
  await raw.hset('orders', '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1', '1');
  await raw.pexpire('orders', 600_000);
  raw.disconnect();
  // Paired with what it cannot beat: a bare node+ioredis script doing the same reads, and node itself.
  const inspect = await pairedRuns(RUNS, [BIN, 'inspect', 'orders', '-u', server.url], ['bench/bare-inspect.mjs', server.url, 'orders']);
  const version = await pairedRuns(RUNS, [BIN, '--version'], ['-e', '0']);
  console.log(`(a) ${describePair('inspect orders', 'bare node+ioredis', inspect)}`);
  console.log(`    ${describePair('--version', 'node -e 0', version)}`);
  const view = await alternate(RUNS, { view: `node --input-type=module -e "await import('./dist/ui/inspect-live.js')"` });
  console.log(`    loading the live view alone takes ${view.view!.toFixed(0)} ms, which inspect never pays (test/commands/ls-no-ink.test.ts runs it under an import hook that refuses ink and react)`);
}

/** 10,000 locks of five kinds (plus their companion keys), the rest DEBUG POPULATE strings. */
async function bigKeyspace(server: RedisServer): Promise<number> {
  const raw = new Redis({ port: server.port, password: PASSWORD });
  const owner = (i: number) => `6f1c2b8e-1f7a-4c1e-9d8e-${String(i).padStart(12, '0')}:1`;
  await raw.flushall(); // see oneKey
  const p = raw.pipeline();
  for (let i = 0; i < 10_000; i++) {
    const kind = i % 5;
    const key = `lock:${i}`;
    if (kind === 0) p.hset(key, owner(i), '1').pexpire(key, 3_600_000);
    else if (kind === 1) p.set(key, Buffer.from(String(i).padStart(32, '0')).toString('hex').slice(0, 32), 'PX', 3_600_000);
    else if (kind === 2) p.hset(key, owner(i), '1').pexpire(key, 3_600_000).rpush(`redisson_lock_queue:{${key}}`, owner(i + 1)).zadd(`redisson_lock_timeout:{${key}}`, Date.now() + 600_000, owner(i + 1));
    else if (kind === 3) p.hset(key, 'mode', 'read', owner(i), '1').pexpire(key, 3_600_000).set(`{${key}}:${owner(i)}:rwlock_timeout:1`, '1', 'PX', 3_600_000);
    else p.set(key, '3');
  }
  await p.exec();
  const locksAndCompanions = await raw.dbsize();
  await raw.call('DEBUG', 'POPULATE', String(TOTAL_KEYS - locksAndCompanions), 'key');
  const total = await raw.dbsize();
  raw.disconnect();
  return total;
}

async function lsBig(server: RedisServer): Promise<void> {
  const total = await bigKeyspace(server);
  const m = await alternate(LS_RUNS, {
    scan: `redis-cli -p ${server.port} -a ${PASSWORD} --no-auth-warning --scan`,
    ls: `node ${BIN} ls -u ${server.url} --json`,
    table: `node ${BIN} ls -u ${server.url}`,
    ...(process.env.BENCH_LS_FULL ? { full: `node ${BIN} ls -u ${server.url} --kind not-a-lock --json` } : {}),
  });
  const { stdout } = await sh('node', [BIN, 'ls', '-u', server.url, '--json'], { maxBuffer: 1 << 30 });
  const kinds = new Map<string, number>();
  for (const line of stdout.split('\n').filter((l) => l !== '')) {
    const { kind, mode } = JSON.parse(line) as { kind: string; mode?: string };
    const name = mode ? `${kind}:${mode}` : kind;
    kinds.set(name, (kinds.get(name) ?? 0) + 1);
  }
  const listed = [...kinds.values()].reduce((a, b) => a + b, 0);
  console.log(`(b) ${total.toLocaleString('en-US')} keys, ${listed} locks listed (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}); median of ${LS_RUNS}:`);
  console.log(`    redis-cli --scan ${(m.scan! / 1000).toFixed(2)} s; ls --json ${(m.ls! / 1000).toFixed(2)} s (${(m.ls! / m.scan!).toFixed(2)}x); ls table ${(m.table! / 1000).toFixed(2)} s (${(m.table! / m.scan!).toFixed(2)}x)`);
  if (m.full !== undefined) console.log(`    a snapshot of every key (ls --kind not-a-lock): ${(m.full / 1000).toFixed(2)} s (${(m.full / m.scan!).toFixed(2)}x)`);
}

/** A TCP proxy that counts round trips: client writes with no server reply in between are one. */
function countingProxy(target: number): Promise<{ server: Server; port: number; roundTrips: () => number }> {
  let trips = 0;
  const server = createServer((client) => {
    const upstream = new Socket();
    let awaiting = false;
    client.on('data', (d) => {
      if (!awaiting) trips += 1;
      awaiting = true;
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      awaiting = false;
      client.write(d);
    });
    const end = () => (client.destroy(), upstream.destroy());
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    upstream.connect(target, '127.0.0.1');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, roundTrips: () => trips })));
}

async function commandStats(raw: Redis): Promise<Map<string, number>> {
  const info = await raw.info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

async function watch100(server: RedisServer): Promise<void> {
  const raw = new Redis({ port: server.port, password: PASSWORD });
  const keys = Array.from({ length: 100 }, (_, i) => `w${i}`);
  const p = raw.pipeline();
  for (const key of keys) p.hset(key, '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1', '1').pexpire(key, 600_000);
  await p.exec();
  const proxy = await countingProxy(server.port);
  const before = await commandStats(raw);
  const child = spawn('node', [BIN, 'inspect', ...keys, '--watch', '--json', '--interval', '1s', '-u', `redis://:${PASSWORD}@127.0.0.1:${proxy.port}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let ticks = 0;
  let tripsAtFirstTick = 0;
  child.stdout.on('data', (d: Buffer) => {
    for (const c of d) if (c === 0x0a && ++ticks === 1) tripsAtFirstTick = proxy.roundTrips();
  });
  await new Promise((r) => setTimeout(r, WATCH_SECONDS * 1000));
  const trips = proxy.roundTrips() - tripsAtFirstTick;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const after = await commandStats(raw);
  proxy.server.close();
  raw.disconnect();
  const delta = [...after].map(([c, n]) => [c, n - (before.get(c) ?? 0)] as const).filter(([c, n]) => n > 0 && c !== 'info' && c !== 'pexpire' && c !== 'hset');
  const topLevel = delta.filter(([c]) => c === 'evalsha' || c === 'eval').reduce((s, [, n]) => s + n, 0);
  const inScripts = delta.filter(([c]) => c !== 'evalsha' && c !== 'eval').reduce((s, [, n]) => s + n, 0);
  console.log(`(c) inspect --watch --json of 100 locks at 1 s for ${WATCH_SECONDS} s: ${ticks} ticks, ${(trips / Math.max(1, ticks - 1)).toFixed(2)} round trips per tick after the first;`);
  console.log(`    ${(topLevel / WATCH_SECONDS).toFixed(0)} script calls/s (+ 1 INFO per tick), ${(inScripts / WATCH_SECONDS).toFixed(0)} commands/s run inside them: ${delta.map(([c, n]) => `${c} ${n}`).join(', ')}`);
}

async function main(): Promise<void> {
  ensureBuilt();
  const servers: RedisServer[] = [];
  try {
    const small = await startRedis({ password: PASSWORD });
    servers.push(small);
    const big = await startRedis({ password: PASSWORD, args: ['--enable-debug-command', 'yes'] });
    servers.push(big);
    // The machine is shared: figures move with its load, so each run says what it was.
    const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
    console.log(`redis-server ${servers.map((s) => s.port).join(', ')}; node ${process.version}; load average (1, 5, 15 min) ${load()}`);
    await oneKey(small);
    console.log(`    load average after (a): ${load()}`);
    if (STARTUP_ONLY) return;
    await watch100(small);
    await lsBig(big);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

await main();
