import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingNotifyFlags } from '../../src/core/trace/notify-flags.js';
import { rawClient } from '../helpers/lock-env.js';
import { sideEffects } from '../helpers/read-only.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';
import { watchCommands } from '../helpers/monitor.js';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { runTrace } from '../../src/trace/run.js';
import { TraceSource } from '../../src/trace/source.js';
import { startTrace } from './trace-fixture.js';

// `trace --source keyspace` on real servers: one with notify-keyspace-events on (as an operator
// would set it) and one left at Redis's default (off). Locks are taken by our own CLI. Another
// MONITOR on each server sees what the trace sends: reads only, and CONFIG SET only when asked.

let enabled: RedisServer;
let off: RedisServer;
let rawEnabled: Redis;
let rawOff: Redis;

beforeAll(async () => {
  [enabled, off] = await Promise.all([startRedis({ args: ['--notify-keyspace-events', 'Kg$hx'] }), startRedis()]);
  rawEnabled = rawClient(enabled);
  rawOff = rawClient(off);
});
afterAll(async () => {
  rawEnabled?.disconnect();
  rawOff?.disconnect();
  await Promise.all([enabled?.stop(), off?.stop()]);
});

/** Records what every connection named redlock-cli:trace sends to the server, until stopped. */
async function watchTrace(server: RedisServer) {
  const watcher = await watchCommands(server);
  const { seen } = watcher;
  return {
    async stop() {
      await new Promise((r) => setTimeout(r, 100));
      watcher.close();
      const ours = new Set(seen.filter((s) => s.args[0]?.toLowerCase() === 'client' && s.args[2] === 'redlock-cli:trace').map((s) => s.source));
      return seen.filter((s) => ours.has(s.source)).map((s) => s.args);
    },
  };
}
/** CONFIG SET calls the server has run: MONITOR never shows admin commands, INFO commandstats counts them. */
async function configSets(raw: Redis): Promise<number> {
  const info = String(await raw.info('commandstats'));
  return Number(/^cmdstat_config\|set:calls=(\d+)/m.exec(info)?.[1] ?? 0);
}

describe('trace --source keyspace', () => {
  it('a token lock and a Redisson lock taken by our CLI: acquired, renewed, released with their owners; expired from the server', async () => {
    const watch = await watchTrace(enabled);
    const setsBefore = await configSets(rawEnabled);
    const recording = join(mkdtempSync(join(tmpdir(), 'redlock-keyspace-')), 'trace.ndjson');
    const trace = await startTrace(parseEndpointUrl(enabled.url), { source: 'keyspace', record: recording });
    const env = tempStateEnv({ REDIS_URL: enabled.url });
    const cli = async (...args: string[]) => {
      const r = await runCli(args, env);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { owner: string };
    };
    const tok = await cli('acquire', 'tok', '--kind', 'token', '--lease', '1s', '--json');
    const red = await cli('acquire', 'red', '--lease', '20s', '--json');
    await cli('renew', 'red', '--owner', red.owner, '--lease', '25s', '--json');
    await cli('release', 'red', '--owner', red.owner, '--json');
    await eventually(async () => trace.events.some((e) => e.kind === 'expired' && e.lock === 'tok'), 15_000);
    await trace.stop(rawEnabled);
    const sent = await watch.stop();

    const of = (lock: string) => trace.events.filter((e) => e.lock === lock).map((e) => `${e.kind} ${e.owner}`);
    expect(of('tok')).toEqual([`acquired ${tok.owner}`, `expired ${tok.owner}`]);
    expect(of('red')).toEqual([`acquired ${red.owner}`, `renewed ${red.owner}`, `released ${red.owner}`]);
    const expired = trace.events.find((e) => e.kind === 'expired')!;
    expect(expired.detail).toBe("the server's expired notification");
    expect(trace.events.find((e) => e.kind === 'renewed')?.leaseMs).toBeGreaterThan(20_000);
    expect(trace.findings).toEqual([]);
    // The recording replays as the live run went.
    const replay = await runCli(['trace', '--from', recording, '--json'], env);
    expect(replay.code, replay.stderr).toBe(0);
    const replayed = replay.stdout.trim().split('\n').map((l) => JSON.parse(l) as TraceEvent & { type: string }).filter((e) => e.type === 'event' && !e.lock.startsWith('trace-marker-'));
    expect(replayed.map((e) => `${e.kind} ${e.lock} ${e.owner} ${e.t}`)).toEqual(trace.events.map((e) => `${e.kind} ${e.lock} ${e.owner} ${e.t}`));
    // Read-only: reads and the subscription; no CONFIG SET since the flags were on.
    expect(sent.some((a) => a[0]!.toLowerCase() === 'psubscribe')).toBe(true);
    expect(await configSets(rawEnabled)).toBe(setsBefore);
    expect(await sideEffects(rawEnabled, sent)).toEqual([]);
  }, 60_000);

  it('notifications off: exit 2 with one line naming the missing flags and both fixes; the config is left alone', async () => {
    const watch = await watchTrace(off);
    const setsBefore = await configSets(rawOff);
    const r = await runCli(['trace', '--source', 'keyspace', '--for', '2s'], tempStateEnv({ REDIS_URL: off.url }));
    const sent = await watch.stop();
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `redlock-cli: --source keyspace: notify-keyspace-events on 127.0.0.1:${off.port} is "", without K g $ h x: run CONFIG SET notify-keyspace-events "Kg$hx" there, or add --enable-notifications (trace sets them and puts "" back when it ends)`,
    ]);
    expect(await rawOff.config('GET', 'notify-keyspace-events')).toEqual(['notify-keyspace-events', '']);
    expect(await configSets(rawOff)).toBe(setsBefore);
    expect(await sideEffects(rawOff, sent)).toEqual([]);
  }, 30_000);

  it('--enable-notifications: sets the flags, traces, and puts the old value back; that CONFIG SET pair is all it changes', async () => {
    await rawOff.config('SET', 'notify-keyspace-events', 'E$');
    // As the server prints it back (its own order of the flags).
    const before = String(((await rawOff.config('GET', 'notify-keyspace-events')) as string[])[1]);
    const watch = await watchTrace(off);
    const setsBefore = await configSets(rawOff);
    const env = tempStateEnv({ REDIS_URL: off.url });
    const run = runCli(['trace', '--source', 'keyspace', '--enable-notifications', '--for', '3s', '--json'], env);
    // Subscribed (after the config is set): what is written from now on is published to it.
    await eventually(async () => Number(await rawOff.call('PUBSUB', 'NUMPAT')) > 0, 10_000);
    await rawOff.set('job', 'tokA', 'PX', 10_000, 'NX');
    const r = await run;
    const sent = await watch.stop();
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; kind?: string; lock?: string; owner?: string });
    expect(events.filter((e) => e.type === 'event').map((e) => `${e.kind} ${e.lock} ${e.owner}`)).toEqual(['acquired job tokA']);
    expect(events.at(-1)).toMatchObject({ type: 'summary', source: 'keyspace', unsafe: false });
    expect(await rawOff.config('GET', 'notify-keyspace-events')).toEqual(['notify-keyspace-events', before]);
    // Exactly one CONFIG SET to turn them on and one to put them back; everything else it sent only reads.
    expect(await configSets(rawOff)).toBe(setsBefore + 2);
    expect(await sideEffects(rawOff, sent)).toEqual([]);
    // The value as the server reports it once set: every needed flag, in the server's own order.
    const set = new RegExp(`set notify-keyspace-events on 127\\.0\\.0\\.1:${off.port} to "([^"]*)" \\(was "(.*)"\\); it is put back when the trace ends`).exec(r.stderr);
    expect(set?.[2]).toBe(before);
    expect(missingNotifyFlags(set?.[1] ?? '')).toEqual([]);
    expect(r.stderr).toContain(`put notify-keyspace-events on 127.0.0.1:${off.port} back to "${before}"`);
    await rawOff.config('SET', 'notify-keyspace-events', '');
  }, 30_000);

  it('a server that stops answering (SIGSTOP) does not hang the end: the config it could not put back is said', async () => {
    const frozen = await startRedis();
    const raw = rawClient(frozen);
    try {
      const abort = new AbortController();
      const status: string[] = [];
      let started!: () => void;
      const ready = new Promise<void>((r) => (started = r));
      const done = runTrace({ spec: parseEndpointUrl(frozen.url), wants: () => true, signal: abort.signal, source: 'keyspace', enableNotifications: true, onStatus: (s) => status.push(s), onStart: () => started() });
      await Promise.race([ready, done]);
      await raw.set('job', 'tok', 'PX', 60_000, 'NX');
      process.kill(frozen.pid, 'SIGSTOP');
      const stoppedAt = Date.now();
      abort.abort();
      await done;
      // Bounded by the read timeouts, whatever the machine's load.
      expect(Date.now() - stoppedAt).toBeLessThan(20_000);
      expect(status.at(-1)).toMatch(/^could not put notify-keyspace-events on 127\.0\.0\.1:\d+ back to "" \(.*\): set it by hand: redis-cli -h 127\.0\.0\.1 -p \d+ CONFIG SET notify-keyspace-events ''$/);
    } finally {
      process.kill(frozen.pid, 'SIGCONT');
      raw.disconnect();
      await frozen.stop();
    }
  }, 60_000);

  it('a backlog at its limit: keys are no longer read back, the events say the owner is unknown, and the trace says why', async () => {
    const events: TraceEvent[] = [];
    const status: string[] = [];
    const source = new TraceSource({ spec: parseEndpointUrl(enabled.url), wants: (k) => k === 'backlog', onEvents: (e) => events.push(...e), onStatus: (s) => status.push(s), source: 'keyspace', keyspaceBacklog: 0 });
    try {
      await source.start();
      await rawEnabled.hincrby('backlog', '6f1c2a3b-0000-4000-8000-000000000001:1', 1);
      await eventually(async () => events.some((e) => e.kind === 'acquired'), 10_000);
    } finally {
      await source.stop();
      await rawEnabled.del('backlog');
    }
    expect(events[0]).toMatchObject({ kind: 'acquired', lock: 'backlog', detail: 'owner unknown: keyspace events carry no values and the key had changed when read' });
    expect(events[0]?.owner).toBeUndefined();
    expect(status).toContain('0 notifications behind: keys are not read back (owners unknown) until the trace catches up');
  }, 30_000);

  it('a user the server does not allow CONFIG: the trace runs, saying once that it cannot check the flags, no password', async () => {
    await rawOff.call('ACL', 'SETUSER', 'no-config', 'on', '>s3cret-pw', '+@all', '-config', '~*', '&*');
    try {
      const r = await runCli(['trace', '--source', 'keyspace', '--for', '1s', '-u', `redis://no-config:s3cret-pw@127.0.0.1:${off.port}`], tempStateEnv());
      expect(r.code).toBe(0);
      const refused = r.stderr.split('\n').filter((line) => line.includes('CONFIG|GET'));
      expect(refused).toEqual([
        `trace: the Redis user no-config at 127.0.0.1:${off.port} may not run CONFIG|GET: grant it with ACL SETUSER no-config +config|get (CONFIG GET is optional: cannot check notify-keyspace-events; it must include "Kg$hx" or no events arrive)`,
      ]);
      expect(r.stderr).not.toContain('s3cret-pw');
    } finally {
      await rawOff.call('ACL', 'DELUSER', 'no-config');
    }
  }, 30_000);
});
