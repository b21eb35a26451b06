import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Redis } from 'ioredis';
import Redlock, { Lock } from 'redlock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { describeWithPeer, startPeer, stopAllPeers } from '../helpers/redisson-peer.js';
import { eventually } from '../helpers/sandbox.js';
import { startTrace } from './trace-fixture.js';

// Real clients whose scripts were loaded before the trace attached: a first client run loads them,
// then the trace starts and sees EVALSHA digests only (the server counts no SCRIPT LOAD or EVAL
// meanwhile). A holder whose lease ran out while it was stalled, then renewed and unlocked, must
// leave the same events and findings as when the trace watched the scripts being loaded.

const fx = useRedisServer();
// A JVM left by a failed test would go on sending its scripts into the next test's traces.
afterEach(async () => {
  await stopAllPeers();
});

/** Calls of one command the server has counted (`script|load`, `eval`). */
async function calls(raw: Redis, command: string): Promise<number> {
  const stats = await raw.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command.replace('|', '\\|')}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

/** Owners named by their first appearance (A, B, ...): two runs differ in owner ids only. */
function roles(events: readonly TraceEvent[]): (owner: string) => string {
  const names = new Map<string, string>();
  const role = (owner: string) => {
    if (!names.has(owner)) names.set(owner, String.fromCharCode(65 + names.size));
    return names.get(owner)!;
  };
  for (const e of events) if (e.owner !== undefined && e.kind !== 'attempt') role(e.owner);
  return role;
}

/**
 * Each owner's outcomes in order, repeats folded (`A: acquired renewed expired ...`): how many
 * renewals or retries fit in a wait depends on the machine's load, their order does not.
 */
function lanes(events: readonly TraceEvent[], role: (owner: string) => string): string[] {
  const kinds = new Map<string, string[]>();
  for (const e of events) {
    if (e.owner === undefined || e.kind === 'attempt') continue;
    const lane = kinds.get(role(e.owner)) ?? [];
    if (lane.at(-1) !== e.kind) lane.push(e.kind);
    kinds.set(role(e.owner), lane);
  }
  return [...kinds].map(([who, k]) => `${who}: ${k.join(' ')}`);
}

/** Runs `scenario` under a trace: attached after `warmUp` loaded the scripts, or before anything was loaded. */
async function traced<T>(
  preloaded: boolean,
  warmUp: () => Promise<void>,
  scenario: (events: readonly TraceEvent[]) => Promise<T>,
) {
  await fx.raw.flushall();
  await fx.raw.script('FLUSH');
  if (preloaded) await warmUp();
  const [loads, evals] = [await calls(fx.raw, 'script|load'), await calls(fx.raw, 'eval')];
  const trace = await startTrace(
    parseEndpointUrl(fx.server.url),
    { wants: (lock) => lock === 'job' || lock.startsWith('trace-marker') },
  );
  const result = await scenario(trace.events);
  await trace.stop(fx.raw);
  const bodiesSent = (await calls(fx.raw, 'script|load')) - loads + (await calls(fx.raw, 'eval')) - evals;
  const job = trace.events.filter((e) => e.lock === 'job');
  const role = roles(job);
  // Distinct findings: a watchdog renewal late on a loaded machine adds a second renewal-gap, not a new kind of fault.
  const findings = [...new Set(trace.findings.map((f) => `${f.kind} ${f.lock} ${f.owners.map(role).join(',')}`))];
  return { result, lanes: lanes(job, role), findings, raw: job.filter((e) => e.kind === 'raw'), bodiesSent };
}

/** Both traces of one scenario: what the preloaded one decoded, compared with the one that saw every body. */
async function bothTraces<T>(warmUp: () => Promise<void>, scenario: (events: readonly TraceEvent[]) => Promise<T>) {
  const preloaded = await traced(true, warmUp, scenario);
  const loaded = await traced(false, warmUp, scenario);
  // The first trace met digests alone, all of them catalogued; the second saw the bodies sent.
  expect(preloaded.bodiesSent).toBe(0);
  expect(loaded.bodiesSent).toBeGreaterThan(0);
  expect(preloaded.raw).toEqual([]);
  expect(preloaded.lanes).toEqual(loaded.lanes);
  expect(preloaded.findings).toEqual(loaded.findings);
  return preloaded;
}

describeWithPeer('a trace attached after the real Redisson client cached its scripts', () => {
  // The digests Redisson 3.52.0 sends for RLock acquire, the watchdog's renewal and unlock.
  const DIGESTS = [
    '149c5a8bf18676fd99e9e6e24923bd64d9b62f94',
    '6a3d31570dc6f4b0bd32bcdc8e75667747c6f635',
    '6866459238a13a701d42f4971f12d9f3a50e2442',
  ];
  const port = () => fx.server.port;

  async function warmUp(): Promise<void> {
    // A 300 ms watchdog period within a 1.2 s hold: acquire, renewal and unlock all run once.
    const warm = startPeer(port(), ['hold', 'lock', 'warm', '1200'], { watchdogMs: 900 });
    expect(await warm.exited, warm.output()).toBe(0);
    expect(await fx.raw.script('EXISTS', ...DIGESTS)).toEqual([1, 1, 1]);
  }

  /** A holds `job`; B waits for it (refused first); A stalls (SIGSTOP) past its lease; B takes it; A wakes, renews, unlocks. */
  async function frozenHolder(events: readonly TraceEvent[]): Promise<void> {
    const a = startPeer(port(), ['hold', 'lock', 'job', '60000'], { watchdogMs: 1500 });
    const aHeld = await a.waitFor('acquired', { timeoutMs: 30_000 });
    const b = startPeer(port(), ['trylock', 'lock', 'job', '30000', '10000', '--hold', '500']);
    await eventually(async () => events.some((e) => e.kind === 'refused' && e.lock === 'job'), 30_000);
    process.kill(a.pid, 'SIGSTOP');
    await b.waitFor('acquired', { timeoutMs: 30_000 });
    process.kill(a.pid, 'SIGCONT');
    await eventually(async () => events.some((e) => e.kind === 'renew-refused' && e.owner === aHeld.token), 30_000);
    await a.stop(); // SIGTERM: its shutdown hook unlocks, and the server refuses
    await eventually(async () => events.some((e) => e.kind === 'release-refused' && e.owner === aHeld.token), 30_000);
    expect(await b.exited, b.output()).toBe(0);
  }

  it('the refused renewal and unlock of a stalled holder are events, and the findings are those of a trace that saw the scripts loaded', async () => {
    const run = await bothTraces(warmUp, frozenHolder);
    expect(run.lanes).toEqual([
      'A: acquired renewed expired renew-refused release-refused',
      'B: refused acquired released',
    ]);
    // Its renewals stopped while it was stalled: the lease ran out under it, and B took the lock.
    expect(run.findings).toEqual(['renewal-gap job A', 'expired-while-held job A', 'overlap job A,B']);
  }, 240_000);
});

describe('a trace attached after node-redlock cached its scripts', () => {
  // The digests redlock 5.0.0-beta.2 sends: acquire, extend, release.
  const DIGESTS = [
    '96da70f7716f27d278a5218544df37fd8b0a5e4c',
    'aed6f382e410db8ba7926d4e5e9aab410bf2a78a',
    'e4612211c9f8f51c257e26e056b0a654b3187242',
  ];
  const clients: Redis[] = [];
  afterAll(() => {
    for (const c of clients) c.disconnect();
  });
  /** A node-redlock instance on its own connection, no retries: each call is one attempt. */
  const redlock = (): Redlock => {
    const client = rawClient(fx.server);
    clients.push(client);
    return new Redlock([client], { retryCount: 0 });
  };

  async function warmUp(): Promise<void> {
    const lock = await redlock().acquire(['warm'], 5000);
    await (await lock.extend(5000)).release();
    expect(await fx.raw.script('EXISTS', ...DIGESTS)).toEqual([1, 1, 1]);
  }

  /** A holds `job` for 600 ms; B is refused; A's lease runs out; B takes it; A, its handle still valid to it, extends and releases. */
  async function staleHolder(): Promise<void> {
    const [a, b] = [redlock(), redlock()];
    const held = await a.acquire(['job'], 600);
    await expect(b.acquire(['job'], 10_000)).rejects.toThrow();
    await eventually(async () => (await fx.raw.exists('job')) === 0, 15_000);
    const taken = await b.acquire(['job'], 10_000);
    // What a holder stalled past its lease still believes: node-redlock checks only its own clock.
    const stale = new Lock(a, ['job'], held.value, [], Date.now() + 10_000);
    await expect(stale.extend(600)).rejects.toThrow();
    await expect(stale.release()).rejects.toThrow();
    await taken.release();
  }

  it('the refused extension and release of a stale holder are events, and the findings are those of a trace that saw the scripts loaded', async () => {
    const run = await bothTraces(warmUp, staleHolder);
    // node-redlock draws a new value for each acquisition: the refused one (B) is an owner of its
    // own, and releases what a failed acquisition may have taken on some servers.
    expect(run.lanes).toEqual([
      'A: acquired expired renew-refused release-refused',
      'B: refused release-refused',
      'C: acquired released',
    ]);
    expect(run.findings).toEqual(['expired-while-held job A', 'overlap job A,C']);
  }, 60_000);
});
