import { afterAll, describe, expect, it } from 'vitest';
import { processesUnder } from '../../src/sandbox/procfs.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { isAlive } from '../helpers/sandbox.js';

// The default cluster sandbox (3 primaries, no replicas) as a user starts it, and used at once by
// our own lock commands through the seed list `up` prints.

const env = tempStateEnv();
const cli = (...argv: string[]) => runCli(argv, env);
let pids: number[] = [];

afterAll(async () => {
  await cli('sandbox', 'down', '--all');
  expect(pids.filter(isAlive)).toEqual([]);
  expect(processesUnder(env.XDG_STATE_HOME!)).toEqual([]);
});

describe('sandbox up --topology cluster', () => {
  it('forms 3 primaries, every node cluster_state:ok, and locks taken through its seeds are read back by inspect and ls', async () => {
    const up = await cli('sandbox', 'up', '--topology', 'cluster', '--name', 'c3', '--json');
    expect(up.code, up.stderr).toBe(0);
    const out = JSON.parse(up.stdout) as { nodes: { name: string; role: string; pid: number }[]; urls: { cluster: { seeds: string[] } } };
    pids = out.nodes.map((n) => n.pid);
    expect(out.nodes.map((n) => `${n.name}:${n.role}`)).toEqual(['n1:primary', 'n2:primary', 'n3:primary']);
    const seeds = out.urls.cluster.seeds.join(',');
    expect(out.urls.cluster.seeds).toHaveLength(3);

    const status = await cli('sandbox', 'status', 'c3', '--json');
    const nodes = (JSON.parse(status.stdout) as { nodes: { clusterState?: string }[] }).nodes;
    expect(nodes.map((n) => n.clusterState)).toEqual(['ok', 'ok', 'ok']);

    for (const key of ['orders', 'stock', 'pay']) {
      expect((await cli('acquire', key, '--cluster', seeds, '--lease', '20s')).code).toBe(0);
    }
    const inspect = await cli('inspect', 'orders', 'stock', 'pay', '--cluster', seeds, '--json');
    expect(inspect.code, inspect.stderr).toBe(0);
    const views = JSON.parse(inspect.stdout) as { key: string; kind: string; holders: unknown[] }[];
    expect(views.map((v) => [v.key, v.kind, v.holders.length])).toEqual([['orders', 'reentrant', 1], ['stock', 'reentrant', 1], ['pay', 'reentrant', 1]]);
    const ls = await cli('ls', '--cluster', seeds, '--json');
    expect((JSON.parse(ls.stdout) as { key: string }[]).map((v) => v.key).sort()).toEqual(['orders', 'pay', 'stock']);
  });
});
