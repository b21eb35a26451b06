import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState } from '../../src/sandbox/state.js';
import type { NodeRecord } from '../../src/sandbox/types.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, isAlive } from '../helpers/sandbox.js';

// `inspect` of several keys on a Cluster sandbox with one primary stopped (by the sandbox verbs,
// which signal its pid): every key gets its own answer, the keys of the stopped primary are named
// with that node and its slots, and the exit code says the answer is partial (9).

const env = tempStateEnv();
const sandbox = (...argv: string[]) => runCli(['sandbox', ...argv, '--name', 'part'], env);
const inspect = (...argv: string[]) => runCli(['inspect', 'b', 'c', 'a', ...argv, '--sandbox', 'part'], env);
const pids = new Set<number>();
const clients: Redis[] = [];
let nodes: NodeRecord[] = [];
// The sandbox gives n1, n2, n3 a third of the slots each: b (slot 3300) is n1's, c (7365) n2's, a (15495) n3's.
const addr = (i: number): string => `127.0.0.1:${nodes[i]!.port}`;

function client(port: number): Redis {
  const c = new Redis({ port, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0 });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  expect((await sandbox('up', '--topology', 'cluster')).code).toBe(0);
  nodes = [...readState(join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes', 'part'))!.nodes];
  nodes.forEach((n) => pids.add(n.pid));
  for (const key of ['a', 'b', 'c']) expect((await runCli(['acquire', key, '--lease', '10m', '--sandbox', 'part'], env)).code).toBe(0);
}, 60_000);

afterAll(async () => {
  clients.forEach((c) => c.disconnect());
  await sandbox('down');
  await eventually(async () => [...pids].every((p) => !isAlive(p)), 5000);
}, 30_000);

/** Waits until n1 and n2 (the primaries that stay up) each report this cluster_state. */
const everyServingPrimary = (state: 'ok' | 'fail') =>
  eventually(async () => {
    const infos = await Promise.all([0, 1].map((i) => client(nodes[i]!.port).cluster('INFO')));
    return infos.every((info) => info.includes(`cluster_state:${state}`));
  }, 20_000);

describe('inspect of several keys on a Cluster with one primary down', () => {
  it('killed primary, the Cluster then refusing every read: each key named with its own primary (exit 9)', async () => {
    expect((await sandbox('kill', 'n3')).code).toBe(0);
    // Each node decides its own cluster state: both serving primaries must have seen n3 fail.
    await everyServingPrimary('fail');

    const text = await inspect();
    expect(text.code).toBe(9);
    expect(text.stdout).toBe('');
    expect(text.stderr.trim().split('\n')).toEqual([
      `redlock-cli: "b" not read: its Cluster primary ${addr(0)} (slots 0-5460): the Cluster refuses reads while a primary is down (CLUSTERDOWN)`,
      `redlock-cli: "c" not read: its Cluster primary ${addr(1)} (slots 5461-10921): the Cluster refuses reads while a primary is down (CLUSTERDOWN)`,
      expect.stringMatching(new RegExp(`^redlock-cli: "a" not read: its Cluster primary ${addr(2)} \\(slots 10922-16383\\): .*${addr(2)}`)),
    ]);
  }, 60_000);

  it('paused primary, the others serving their slots: each key answered, the paused one named (exit 9)', async () => {
    // Back with its slots (and empty: no persistence), then the Clusters that keep serving the
    // slots they have (cluster-require-full-coverage no).
    expect((await sandbox('restart', 'n3')).code).toBe(0);
    pids.add(readState(join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes', 'part'))!.nodes[2]!.pid);
    await everyServingPrimary('ok');
    for (const i of [0, 1]) await client(nodes[i]!.port).config('SET', 'cluster-require-full-coverage', 'no');
    expect((await sandbox('pause', 'n3')).code).toBe(0);

    const text = await inspect();
    expect(text.code).toBe(9);
    expect(text.stdout, text.stderr).toMatch(/^b {2}Redisson lock/m);
    expect(text.stdout, text.stderr).toMatch(/^c {2}Redisson lock/m);
    expect(text.stdout).not.toMatch(/^a /m);
    expect(text.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^redlock-cli: "a" not read: its Cluster primary ${addr(2)} \\(slots 10922-16383\\): Redis at ${addr(2)} did not answer within 5\\.0 s`)),
    ]);

    const json = await inspect('--json');
    expect(json.code).toBe(9);
    const reads = JSON.parse(json.stdout) as { key: string; kind: string; node?: string; slots?: string }[];
    expect(reads.map((r) => `${r.key} ${r.kind}`)).toEqual(['b reentrant', 'c reentrant', 'a unread']);
    expect(reads[2]).toMatchObject({ node: addr(2), slots: '10922-16383', reason: expect.stringContaining('did not answer') });
  }, 60_000);
});
