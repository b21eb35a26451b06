import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState } from '../../src/sandbox/state.js';
import { probe, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ topology: 'single', name: 'single' });

describe('sandbox single', () => {
  it('runs one foreground redis-server on loopback, without persistence, recorded in the state file', async () => {
    const { sandbox } = fx;
    const [n1] = sandbox.nodes;
    expect(n1).toMatchObject({ name: 'n1', role: 'primary', state: 'running' });
    const state = readState(sandbox.dir)!;
    expect(state).toMatchObject({ name: 'single', topology: 'single', status: 'up', redisServer: expect.stringMatching(/redis-server$/) });
    expect(state.nodes[0]).toEqual(n1);
    expect(Date.parse(n1!.startedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(n1!.port).not.toBe(6379);
    // The recorded pid is the server itself: its title names our port and config, its cwd is the node dir.
    expect(readFileSync(`/proc/${n1!.pid}/cmdline`, 'utf8')).toContain(`127.0.0.1:${n1!.port}`);
    expect(readFileSync(`/proc/${n1!.pid}/cmdline`, 'utf8')).toContain(join(sandbox.dir, 'n1', 'redis.conf'));
    expect(readlinkSync(`/proc/${n1!.pid}/cwd`)).toBe(join(sandbox.dir, 'n1'));
    const c = fx.client(n1!.port);
    expect(await c.config('GET', 'save')).toEqual(['save', '']);
    expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await c.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    expect(sandbox.urls).toMatchObject({ primary: `redis://127.0.0.1:${n1!.port}`, cliArgs: ['--url', `redis://127.0.0.1:${n1!.port}`] });
  });

  it('kill: the port refuses connections and status says killed', async () => {
    const { sandbox } = fx;
    const result = await sandbox.kill('n1');
    expect(result.message).toMatch(/^killed n1 \(SIGKILL to pid \d+\)/);
    expect(await probe(result.port)).toBe('refused');
    expect((await sandbox.status()).nodes[0]).toMatchObject({ name: 'n1', state: 'killed' });
    await expect(sandbox.pause('n1')).rejects.toThrow(/not running/);
  });

  it('restart comes back on the same port with no keys (no persistence, so without --amnesia too)', async () => {
    const { sandbox } = fx;
    const before = sandbox.nodes[0]!;
    await sandbox.restart('n1');
    const c = fx.client(before.port);
    await c.set('lock', 'a');
    const plain = await sandbox.restart('n1');
    expect(plain.port).toBe(before.port);
    expect(plain.pid).not.toBe(before.pid);
    expect(plain.message).toMatch(/0 keys: there is no persistence/);
    expect(await fx.client(before.port).dbsize()).toBe(0);
    await fx.client(before.port).set('lock', 'b');
    const amnesia = await sandbox.restart('n1', { amnesia: true });
    expect(amnesia.message).toMatch(/--amnesia also wiped/);
    expect(await fx.client(before.port).dbsize()).toBe(0);
    expect((await sandbox.status()).nodes[0]).toMatchObject({ state: 'running', role: 'primary', keys: 0 });
  });

  it('pause: a client times out; resume: it answers, with what it queued', async () => {
    const { sandbox } = fx;
    const port = sandbox.nodes[0]!.port;
    await sandbox.pause('n1');
    expect(await probe(port)).toBe('timeout');
    expect((await sandbox.status()).nodes[0]).toMatchObject({ state: 'paused' });
    const queued = fx.client(port).set('written-while-paused', '1');
    await sandbox.resume('n1');
    expect(await queued).toBe('OK');
    expect(await probe(port)).toBe('PONG');
    expect((await sandbox.status()).nodes[0]).toMatchObject({ state: 'running' });
  });

  it('pause --for resumes by itself; resume() ends it early', async () => {
    const { sandbox } = fx;
    const port = sandbox.nodes[0]!.port;
    const started = Date.now();
    const timed = await sandbox.pause('n1', { forMs: 300 });
    expect(await probe(port, 100)).toBe('timeout');
    await timed.resumed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await probe(port)).toBe('PONG');
    const long = await sandbox.pause('n1', { forMs: 60_000 });
    const early = await sandbox.resume('n1');
    expect(await long.resumed).toEqual(early);
    expect(await probe(port)).toBe('PONG');
  });

  it('restart with extra env runs the new process with it and records it', async () => {
    const { sandbox } = fx;
    // jemalloc reads MALLOC_CONF at start-up: a visible effect of the environment on the server.
    // (Its /proc/<pid>/environ is no use: redis-server writes its process title over it.)
    const result = await sandbox.restart('n1', { env: { MALLOC_CONF: 'narenas:3' } });
    expect(result.message).toMatch(/with MALLOC_CONF set/);
    expect(String(await fx.client(result.port).call('MEMORY', 'MALLOC-STATS'))).toMatch(/opt\.narenas: 3\b/);
    expect(sandbox.nodes[0]!.env).toEqual({ MALLOC_CONF: 'narenas:3' });
    // A later restart keeps it unless told otherwise.
    const again = await sandbox.restart('n1');
    expect(String(await fx.client(again.port).call('MEMORY', 'MALLOC-STATS'))).toMatch(/opt\.narenas: 3\b/);
  });

  it('refuses nodes that are not in the state file, and failover without replicas', async () => {
    const { sandbox } = fx;
    await expect(sandbox.kill('n2')).rejects.toThrow('sandbox "single" has no node "n2" (its nodes: n1)');
    await expect(sandbox.restart('/etc')).rejects.toThrow(/no node/);
    await expect(sandbox.failover()).rejects.toThrow(/needs a sentinel or replicated sandbox/);
  });

  it('stop kills the server by pid and removes the directory', async () => {
    const { sandbox } = fx;
    const { pid } = sandbox.nodes[0]!;
    const result = await sandbox.stop();
    expect(result).toEqual({ stopped: 1, gone: 0 });
    expect(existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== '').toBe(false);
    expect(existsSync(sandbox.dir)).toBe(false);
  });
});
