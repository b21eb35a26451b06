// Issue 24, item 2: a Cluster slot mid-migration (CLUSTER SETSLOT ... MIGRATING / IMPORTING, the
// key moved with MIGRATE) answers ASK, and TRYAGAIN to a script over several keys of which only
// some have moved. Before, every read and lock command through --cluster stopped with exit 2 and
// the advice to "connect with --cluster", or exit 1 for ls. Reads now follow the ASK; lock
// scripts over one key do too; a Redisson lock's scripts (several keys) get a clear exit 3.
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { clusterNodeOf, startCluster, type Topology } from '../helpers/topologies.js';

const env = tempStateEnv();
let cluster: Topology;
let nodes: Redis[];
let seeds: string[];
const LOCK = 'moving-lock';
const TOKEN = 'moving-token';
let lockOwner = '';
let tokenTo = 0;

const cli = (...args: string[]) => runCli([...args, '--cluster', seeds.join(','), '--timeout', '2s'], env);

/** Starts moving `key`'s slot from its owner to the next node, and moves the key if it exists. */
async function startMoving(key: string): Promise<{ from: number; to: number }> {
  const slot = calculateSlot(key);
  const from = clusterNodeOf(key);
  const to = (from + 1) % 3;
  const [fromId, toId] = await Promise.all([nodes[from]!.call('CLUSTER', 'MYID'), nodes[to]!.call('CLUSTER', 'MYID')]);
  // Asked before MIGRATING: from then on the old owner answers ASK for a key it does not have.
  const exists = await nodes[from]!.exists(key);
  await nodes[to]!.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', String(fromId));
  await nodes[from]!.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', String(toId));
  if (exists === 1) {
    await nodes[from]!.call('MIGRATE', '127.0.0.1', cluster.nodes[to]!.port, '', 0, 5000, 'KEYS', key);
  }
  return { from, to };
}

const keysInSlot = (node: number, key: string): Promise<number> =>
  nodes[node]!.call('CLUSTER', 'COUNTKEYSINSLOT', calculateSlot(key)) as Promise<number>;

beforeAll(async () => {
  cluster = await startCluster();
  nodes = cluster.nodes.map((n) => new Redis({ host: '127.0.0.1', port: n.port, maxRetriesPerRequest: 1 }));
  seeds = cluster.nodes.map((n) => `127.0.0.1:${n.port}`);
  const taken = await cli('acquire', LOCK, '--lease', '10m', '--json');
  expect(taken.code).toBe(0);
  lockOwner = JSON.parse(taken.stdout).owner;
  const { from, to } = await startMoving(LOCK);
  // The lock now lives on the importing node only: its old owner answers ASK for it.
  expect([await keysInSlot(from, LOCK), await keysInSlot(to, LOCK)]).toEqual([0, 1]);
  tokenTo = (await startMoving(TOKEN)).to;
}, 60_000);

afterAll(async () => {
  nodes?.forEach((n) => n.disconnect());
  await cluster?.stop();
});

describe('reads follow a slot on the move (ASK)', () => {
  it('inspect reads the lock on the node importing its slot', async () => {
    const r = await cli('inspect', LOCK, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [view] = JSON.parse(r.stdout);
    expect(view).toMatchObject({ key: LOCK, kind: 'reentrant' });
    expect(JSON.stringify(view.holders)).toContain(lockOwner.split(':')[0]);
    // Read alone (a moving slot serves one key at a time), and it says so rather than blame braces.
    expect(JSON.stringify(view.warnings)).toContain('its Cluster slot is moving between nodes');
  });

  it('ls finds it there too (the importing node may not run scripts on it yet)', async () => {
    const r = await cli('ls', '--json');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`"${LOCK}"`);
  });
});

describe('lock commands on a slot on the move', () => {
  it('a token lock (one key) follows the ASK: acquired and released on the importing node', async () => {
    const taken = await cli('acquire', TOKEN, '--kind', 'token', '--lease', '1m', '--json');
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    expect(await keysInSlot(tokenTo, TOKEN)).toBe(1);
    const released = await cli('release', TOKEN, '--kind', 'token', '--owner', JSON.parse(taken.stdout).owner);
    expect(released.code).toBe(0);
    expect(await keysInSlot(tokenTo, TOKEN)).toBe(0);
  });

  it("a Redisson lock's scripts (several keys) get exit 3 saying the slot is moving, never the --cluster advice", async () => {
    const r = await cli('release', LOCK, '--owner', lockOwner);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/kept redirecting this command \((TRYAGAIN|MOVED|ASK) .*\): a slot it touches is moving between nodes; try again once the move is finished\n$/);
    expect(r.stderr).not.toContain('connect with --cluster');
  });
});
