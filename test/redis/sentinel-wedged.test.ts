// Issue 24, item 1: a sentinel that accepts connections and never answers (SIGSTOPped, or a plain
// TCP listener) must be skipped for the next one within --timeout, and a one-shot command must end
// right after its last line. Before, every command through such a sentinel waited forever (or
// printed its exit-3 line and then never exited). Each run is bounded by the helper's SIGKILL, so a
// hang fails here (exit 137) instead of hanging the suite.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli } from '../helpers/cli-process.js';
import { rawClient } from '../helpers/lock-env.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { startSentinel, type SentinelTopology } from '../helpers/topologies.js';

const env = tempStateEnv();
let topo: SentinelTopology;
let paused: number;
let healthy: number;
// Accepts every connection and never writes a byte.
let silent: Server;
let silentPort: number;
const silentSockets: Socket[] = [];

beforeAll(async () => {
  ensureBuilt();
  topo = await startSentinel({ sentinels: 2 });
  paused = topo.sentinels[0]!.port;
  healthy = topo.sentinels[1]!.port;
  process.kill(topo.sentinels[0]!.pid, 'SIGSTOP');
  silent = createServer((socket) => void silentSockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
}, 60_000);

afterAll(async () => {
  killStartedClis();
  if (topo) process.kill(topo.sentinels[0]!.pid, 'SIGCONT');
  await topo?.stop();
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

// --timeout 1s: the wedged sentinel costs one second, then the healthy one answers at once. The old
// code never ended (the helper kills it at BOUND_MS: exit 137); SLACK_MS leaves a busy machine room
// for node's start-up and the command's own round trips without letting a hang pass.
const BOUND_MS = 30_000;
const SLACK_MS = 12_000;

async function timed(args: readonly string[]): Promise<{ code: number; ms: number; out: string; err: string }> {
  const started = performance.now();
  const run = spawnCli([...args, '--timeout', '1s'], env, BOUND_MS);
  const code = await run.exited;
  return { code, ms: performance.now() - started, out: run.out(), err: run.err() };
}

const through = (...ports: number[]): string[] => ['--sentinel', ports.map((p) => `127.0.0.1:${p}`).join(','), '--master-name', 'mymaster'];

describe('the first sentinel is paused (SIGSTOP): every one-shot command goes on to the next', () => {
  let owner = '';

  // In order: what acquire takes, renew, release and force-unlock act on.
  it('acquire takes the lock on the master the healthy sentinel names', async () => {
    const r = await timed(['acquire', 'sk', '--lease', '1m', '--json', ...through(paused, healthy)]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(SLACK_MS);
    owner = JSON.parse(r.out).owner;
    const raw = rawClient(topo.nodes[0]!);
    expect(await raw.hgetall('sk')).toEqual({ [owner]: '1' });
    raw.disconnect();
  }, BOUND_MS + 5000);

  it.each([
    ['inspect', ['inspect', 'sk'], 0],
    ['ls', ['ls'], 0],
    ['doctor', ['doctor'], 0],
    ['renew', ['renew', 'sk', '--lease', '1m', '--owner', '<owner>'], 0],
    ['release', ['release', 'sk', '--owner', '<owner>'], 0],
    ['force-unlock (the key is gone by now: not found)', ['force-unlock', 'sk', '--yes'], 4],
    ['trace --for 1s', ['trace', '--for', '1s'], 0],
  ] as const)('%s', async (_name, args, expected) => {
    const r = await timed([...args.map((a) => (a === '<owner>' ? owner : a)), ...through(paused, healthy)]);
    expect({ code: r.code, err: r.err.includes('did not answer') }).toEqual({ code: expected, err: false });
    expect(r.ms).toBeLessThan(SLACK_MS);
  }, BOUND_MS + 5000);

  it('with no other sentinel: exit 3 naming the sentinels, and the process ends', async () => {
    for (const args of [['inspect', 'sk'], ['trace', '--for', '1s']]) {
      const r = await timed([...args, ...through(paused)]);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`127.0.0.1:${paused}`);
      expect(r.ms).toBeLessThan(SLACK_MS);
    }
  }, 2 * BOUND_MS + 5000);
});

describe('the first sentinel address is a TCP listener that never answers', () => {
  it.each([
    ['inspect', ['inspect', 'sk'], 4],
    ['acquire', ['acquire', 'sk2', '--lease', '2s'], 0],
    ['trace --for 1s', ['trace', '--for', '1s'], 0],
  ] as const)('%s goes on to the healthy sentinel', async (_name, args, expected) => {
    const r = await timed([...args, ...through(silentPort, healthy)]);
    expect(r.code).toBe(expected);
    expect(r.ms).toBeLessThan(SLACK_MS);
  }, BOUND_MS + 5000);

  it('alone: exit 3, and the process ends', async () => {
    const r = await timed(['inspect', 'sk', ...through(silentPort)]);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`127.0.0.1:${silentPort}`);
    expect(r.ms).toBeLessThan(SLACK_MS);
  }, BOUND_MS + 5000);
});
