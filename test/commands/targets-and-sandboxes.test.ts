import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenize } from '../../src/core/repl/tokenize.js';
import { buildProgram } from '../../src/cli/program.js';
import { ALL_COMMANDS } from '../../src/repl/entry.js';
import { flagsTarget, urlTarget } from '../../src/repl/target.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { isAlive } from '../helpers/sandbox.js';

// Targets and sandboxes as connections: --sandbox on every command that talks to Redis, a
// kubectl-like current target, and Redlock across nodes (--nodes on inspect/ls/release/renew,
// and a hint after acquire that is a command that works when run).

const env = tempStateEnv({ XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'redlock-targets-config-')) });
const pids: number[] = [];
let nodes: string[] = [];

beforeAll(async () => {
  const up = await runCli(['sandbox', 'up', '--topology', 'redlock', '--nodes', '3', '--json'], env);
  expect(up.code).toBe(0);
  const state = JSON.parse(up.stdout) as { nodes: { pid: number }[]; urls: { nodes: Record<string, string> } };
  pids.push(...state.nodes.map((n) => n.pid));
  nodes = Object.values(state.urls.nodes);
}, 30_000);
afterAll(async () => {
  await runCli(['sandbox', 'down', '--all'], env);
  expect(pids.filter(isAlive)).toEqual([]);
  rmSync(env.XDG_CONFIG_HOME!, { recursive: true, force: true });
});

const portOf = (url: string): number => Number(new URL(url).port);

async function onNode(url: string, fn: (c: Redis) => Promise<unknown>): Promise<unknown> {
  const c = new Redis({ port: portOf(url), host: '127.0.0.1' });
  try {
    return await fn(c);
  } finally {
    c.disconnect();
  }
}

describe('--sandbox', () => {
  it('is a connection option of every command that takes --target', async () => {
    const quiet = { write: () => true };
    const program = await buildProgram({ stdout: quiet, stderr: quiet, env: {}, exitCode: 0 }, ALL_COMMANDS);
    const walk = (cmd: typeof program): (typeof program)[] => [cmd, ...cmd.commands.flatMap(walk)];
    const connecting = walk(program).filter((c) => c !== program && c.options.some((o) => o.long === '--target' && !o.hidden));
    expect(connecting.map((c) => c.name()).sort()).toEqual(['acquire', 'doctor', 'export', 'force-unlock', 'hold', 'inspect', 'ls', 'race', 'release', 'renew', 'repl', 'trace', 'who']);
    for (const cmd of connecting) expect(cmd.options.some((o) => o.long === '--sandbox'), cmd.name()).toBe(true);
  });

  it('on a Redlock sandbox, acquire locks on every node; inspect/ls show the copies; the hint releases it', async () => {
    const acquired = await runCli(['acquire', 'job', '--sandbox', '--lease', '1m'], env);
    expect(acquired.code).toBe(0);
    for (const url of nodes) expect(await onNode(url, (c) => c.exists('job'))).toBe(1);
    const inspect = await runCli(['inspect', 'job', '--sandbox'], env);
    expect(inspect.stdout.split('\n')[0]).toBe('job  on 3 of 3 nodes (a majority holds it, quorum 2)');
    const hint = /release it with: (.*)\n/.exec(acquired.stderr)?.[1];
    expect(hint).toMatch(/^redlock-cli release job --kind redlock --nodes \S+ --sandbox default$/);
    const tokens = tokenize(hint!);
    if (!tokens.ok) throw new Error(tokens.error);
    const released = await runCli(tokens.tokens.slice(1).map((t) => t.value), env);
    expect(released).toMatchObject({ code: 0, stdout: 'released "job"\n' });
    for (const url of nodes) expect(await onNode(url, (c) => c.exists('job'))).toBe(0);
  });

  it('REDISCLI_AUTH is not sent to a sandbox (it has no password, and ioredis would warn on stderr)', async () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const r = await runCli(['inspect', 'nothing', '--sandbox', '--nodes', nodes.join(',')], { ...env, REDISCLI_AUTH: 'exported-elsewhere' });
      expect(r.code).toBe(4);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('--sandbox with --url is a usage error', async () => {
    const r = await runCli(['inspect', 'k', '--sandbox', 'default', '-u', 'redis://127.0.0.1:1'], env);
    expect(r).toMatchObject({ code: 2, stderr: 'redlock-cli: --sandbox already says where to connect: drop --url\n' });
  });
});

describe('Redlock across nodes: --nodes', () => {
  it('inspect and ls name the nodes that hold a copy, with value and TTL; a missing copy shows', async () => {
    const list = nodes.join(',');
    expect((await runCli(['acquire', 'split', '--kind', 'redlock', '--nodes', list, '--lease', '1m'], env)).code).toBe(0);
    await onNode(nodes[2]!, (c) => c.del('split'));
    const inspect = await runCli(['inspect', 'split', '--nodes', list, '--json'], env);
    const [state] = JSON.parse(inspect.stdout) as [{ held: number; quorum: number; copies: { node: string; state: string; ttlMs?: number }[] }];
    expect(state).toMatchObject({ held: 2, quorum: 2 });
    expect(state.copies.map((c) => c.state)).toEqual(['holds', 'holds', 'absent']);
    expect(state.copies[0]!.ttlMs).toBeGreaterThan(0);
    const ls = await runCli(['ls', '--nodes', list], env);
    expect(ls.stdout).toContain('split  on 2 of 3 nodes (a majority holds it, quorum 2)');
    expect(ls.stdout).toContain(`127.0.0.1:${portOf(nodes[2]!)}  no copy`);
    const renew = await runCli(['renew', 'split', '--kind', 'redlock', '--nodes', list, '--lease', '2m'], env);
    expect(renew.stderr).toContain('split  on 2 of 3 nodes');
    const release = await runCli(['release', 'split', '--kind', 'redlock', '--nodes', list], env);
    expect(release.code).toBe(0);
    expect(release.stderr).toContain('split  on 0 of 3 nodes (not locked, quorum 2)');
  });
});

describe('target use: a current target', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis({ password: 'cur-pass' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('commands without connection options go to the current target; target list marks it; REDIS_URL wins', async () => {
    const authed = { ...env, REDISCLI_AUTH: 'cur-pass' };
    expect((await runCli(['target', 'add', 'cur', `redis://127.0.0.1:${server.port}`], env)).code).toBe(0);
    expect(await runCli(['target', 'use', 'cur'], env)).toMatchObject({ code: 0, stdout: 'current target: "cur"\n' });
    const list = await runCli(['target', 'list'], env);
    expect(list.stdout).toMatch(/^\*\s+cur\s/m);
    expect(JSON.parse((await runCli(['target', 'list', '--json'], env)).stdout)).toEqual([expect.objectContaining({ name: 'cur', current: true })]);
    expect((await runCli(['acquire', 'current-k', '--lease', '1m'], authed)).code).toBe(0);
    const c = new Redis({ port: server.port, host: '127.0.0.1', password: 'cur-pass' });
    expect(await c.exists('current-k')).toBe(1);
    c.disconnect();
    const elsewhere = await runCli(['inspect', 'current-k'], { ...authed, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(elsewhere).toMatchObject({ code: 3, stderr: expect.stringContaining('127.0.0.1:1') });
    expect((await runCli(['target', 'use', 'nope'], env)).code).toBe(4);
    expect((await runCli(['target', 'use', '--clear'], env)).code).toBe(0);
    expect((await runCli(['target', 'list'], env)).stdout).not.toMatch(/^\*/m);
  });

  it('the REPL takes the Sentinel URL a sandbox prints', () => {
    const printed = urlTarget('redis-sentinel://127.0.0.1:26379,127.0.0.1:26380#mymaster');
    expect(printed.spec).toMatchObject({ masterName: 'mymaster', sentinels: [{ port: 26379 }, { port: 26380 }] });
    expect(printed.label).toBe('sentinel 127.0.0.1:26379,127.0.0.1:26380 master mymaster');
  });

  it('the REPL names a saved target in its prompt', () => {
    expect(flagsTarget({ endpoint: parseEndpointUrl('redis://127.0.0.1:7000'), targetName: 'cur' }).label).toBe('target:cur');
    expect(flagsTarget({ endpoint: parseEndpointUrl('redis://127.0.0.1:7000') }).label).toBe('127.0.0.1:7000');
  });
});
