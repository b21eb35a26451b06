import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { run } from '../../src/main.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { Keyboard, Sink } from '../helpers/terminal.js';
import { startCluster, type Topology } from '../helpers/topologies.js';

// Cluster and replicas as they really are: a URL naming one Cluster node is that Cluster (every
// command works, ls sees every primary, no raw MOVED); with a primary down ls, ls --watch and
// doctor name it and its slots and exit 9; inspect reads the key on each replica instead of
// quoting an offset.

const env = tempStateEnv();
let cluster: Topology;
// One key per third of the slot space (the helper gives node i the i-th third).
const KEYS = ['b', 'a', 'c']; // slots 3300 (node 0), 15495 (node 2), 7365 (node 1)

beforeAll(async () => {
  cluster = await startCluster();
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

const firstNode = (): string[] => ['-p', String(cluster.nodes[0]!.port)];

describe('a URL that names one Cluster node', () => {
  it('acquire, inspect and release work on keys of every node, without MOVED', async () => {
    for (const key of KEYS) {
      const acquired = await runCli(['acquire', key, '--lease', '5m', ...firstNode()], env);
      expect(acquired).toMatchObject({ code: 0, stdout: expect.stringContaining(`acquired "${key}"`) });
    }
    const inspected = await runCli(['inspect', ...KEYS, '-u', `redis://127.0.0.1:${cluster.nodes[1]!.port}`], env);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout + inspected.stderr).not.toContain('MOVED');
    expect(inspected.stdout.match(/Redisson lock \(reentrant or fair: no queue to tell\), expires in/g)).toHaveLength(3);
  });

  it('ls lists the locks of every primary', async () => {
    const ls = await runCli(['ls', '--json', ...firstNode()], env);
    expect(ls.code).toBe(0);
    const keys = (JSON.parse(ls.stdout) as { key: string }[]).map((v) => v.key).sort();
    expect(keys).toEqual([...KEYS].sort());
  });
});

describe('a Cluster with a primary down', () => {
  beforeAll(async () => {
    await cluster.nodes[2]!.stop(); // slots 10923-16383, key "a"
  });

  /** Either the others are listed, or (once the Cluster marks itself down) they say why not: never a quiet half list. */
  const othersListedOrNamed = (stdout: string, stderr: string): void => {
    for (const node of [0, 1]) {
      const named = stderr.includes(`127.0.0.1:${cluster.nodes[node]!.port}`);
      expect(named || stdout.includes(KEYS[node]!)).toBe(true);
    }
  };

  it('ls and doctor name the unreachable primary and its slots on stderr and exit 9 (partial)', async () => {
    const ls = await runCli(['ls', ...firstNode()], env);
    expect(ls.code).toBe(9);
    expect(ls.stderr).toContain(`redlock-cli: Cluster primary 127.0.0.1:${cluster.nodes[2]!.port} (slots 10923-16383) not read:`);
    othersListedOrNamed(ls.stdout, ls.stderr);
    const doctor = await runCli(['doctor', ...firstNode()], env);
    expect(doctor.code).toBe(9);
    expect(doctor.stderr).toContain(`Cluster primary 127.0.0.1:${cluster.nodes[2]!.port} (slots 10923-16383) not read:`);
  });

  it('ls --watch shows the scan it could make, then names the primary and exits 9 instead of retrying', async () => {
    const stdout = new Sink(true);
    const stderr = new Sink();
    // Bounded: a watch that kept retrying would be interrupted here and exit 130, not 9.
    const code = await run(['ls', '--watch', '--interval', '200ms', ...firstNode()], {
      stdout,
      stderr,
      stdin: new Keyboard() as unknown as NodeJS.ReadableStream,
      env,
      signal: AbortSignal.timeout(20_000),
    });
    expect(code).toBe(9);
    expect(stderr.lines()).toContainEqual(
      expect.stringMatching(new RegExp(`^redlock-cli: Cluster primary 127\\.0\\.0\\.1:${cluster.nodes[2]!.port} \\(slots 10923-16383\\) not read: .+; its keys are missing here$`)),
    );
    othersListedOrNamed(stdout.text, stderr.text);
  });
});

describe('replicas in inspect', () => {
  let primary: RedisServer;
  let replica: RedisServer;
  beforeAll(async () => {
    // Disk-based sync: 7.0's diskless default waits 5 s before a new replica's first sync starts.
    primary = await startRedis({ args: ['--repl-diskless-sync', 'no'] });
    // Writable, so the test can take the key away from the replica alone.
    replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port), '--replica-read-only', 'no'] });
  });
  afterAll(async () => {
    await replica?.stop();
    await primary?.stop();
  });

  it('says whether each replica has the key, read there, with its TTL', async () => {
    expect((await runCli(['acquire', 'pay', '--lease', '5m', '-p', String(primary.port)], env)).code).toBe(0);
    const raw = new Redis({ port: replica.port, host: '127.0.0.1' });
    try {
      // The replica reads what it holds: wait until the lock reached it (bounded; a busy machine syncs slowly).
      const deadline = Date.now() + 30_000;
      while ((await raw.exists('pay')) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await raw.exists('pay')).toBe(1);
      const has = await runCli(['inspect', 'pay', '-p', String(primary.port)], env);
      expect(has.stdout).toMatch(new RegExp(`replicas  127\\.0\\.0\\.1:${replica.port} has it \\(TTL \\d`));
      await raw.del('pay');
      const hasNot = await runCli(['inspect', 'pay', '-p', String(primary.port), '--json'], env);
      const [view] = JSON.parse(hasNot.stdout) as [{ replicas: { replica: string; hasKey: boolean }[] }];
      expect(view.replicas).toEqual([expect.objectContaining({ replica: `127.0.0.1:${replica.port}`, hasKey: false })]);
      const text = await runCli(['inspect', 'pay', '-p', String(primary.port)], env);
      expect(text.stdout).toContain(`replicas  127.0.0.1:${replica.port} does not have it`);
    } finally {
      raw.disconnect();
    }
  }, 60_000);
});
