import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { JSON_CONTRACTS, SANDBOX_VERB } from '../../src/core/contracts/index.js';
import { JSON_SCHEMA_DIR, schemaFileText } from '../../src/core/contracts/files.js';
import { run } from '../../src/main.js';
import { spawnCli } from '../helpers/cli-process.js';
import { useRedisServer } from '../helpers/fixture.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { checked, checkError, checkOutput, isolatedEnv, runBuilt } from './contract-check.js';

// Every --json output against its documented schema (docs/json/), on the real output of the built
// CLI and a real redis-server: one-shot results are one JSON document, streams NDJSON, and a
// failure under --json one error object on stderr.

// Each test starts the built CLI several times: node's start-up alone takes seconds on a busy machine.
const SPAWNS_BOUND = 180_000;

const fx = useRedisServer({ builtCli: true, flushEachTest: true });
const env = isolatedEnv();
const cli = (...args: string[]) => runBuilt([...args, '-p', String(fx.server.port)], env);
const offline = (...args: string[]) => runBuilt(args, env);

afterAll(async () => {
  await offline('sandbox', 'down', '--all');
});

describe('docs/json', () => {
  it('holds exactly the schemas the contracts generate (npm run docs:json)', () => {
    const files = readdirSync(JSON_SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort();
    expect(files).toEqual(JSON_CONTRACTS.map((c) => `${c.file}.schema.json`).sort());
    for (const c of JSON_CONTRACTS) expect(readFileSync(`${JSON_SCHEMA_DIR}/${c.file}.schema.json`, 'utf8'), c.file).toBe(schemaFileText(c));
  });

  it('lists every schema in its README', () => {
    const readme = readFileSync(`${JSON_SCHEMA_DIR}/README.md`, 'utf8');
    expect(JSON_CONTRACTS.filter((c) => !readme.includes(`(${c.file}.schema.json)`)).map((c) => c.file)).toEqual([]);
  });

  it('has a contract for every command that takes --json', async () => {
    const program = await buildProgram({ stdout: { write: () => true }, stderr: { write: () => true }, env: {}, exitCode: 0 });
    const withJson: string[] = [];
    const walk = (cmd: Command, path: string[]): void => {
      for (const sub of cmd.commands) {
        const here = [...path, sub.name()];
        if (sub.options.some((o) => o.long === '--json')) withJson.push(here.join(' '));
        walk(sub, here);
      }
    };
    walk(program, []);
    const verbs = new Set(['up', 'status', 'down']);
    const named = withJson.map((p) => (p.startsWith('sandbox ') && !verbs.has(p.slice(8)) ? SANDBOX_VERB : p));
    const covered = new Set(JSON_CONTRACTS.flatMap((c) => c.commands.map((line) => line.split(' --')[0])));
    expect(withJson.length).toBeGreaterThan(15);
    expect(named.filter((p) => !covered.has(p))).toEqual([]);
  }, SPAWNS_BOUND);
});

describe('lock commands', () => {
  it('acquire (taken, refused, fenced), renew, release, force-unlock', async () => {
    const [taken] = checkOutput('acquire', (await cli('acquire', 'orders', '--json')).stdout) as [{ owner: string }];
    const refused = await cli('acquire', 'orders', '--json');
    expect(refused.code).toBe(5);
    expect((checkOutput('acquire', refused.stdout)[0] as { acquired: boolean }).acquired).toBe(false);
    checkOutput('acquire', (await cli('acquire', 'fenced', '--kind', 'fenced', '--json')).stdout);
    checkOutput('renew', (await cli('renew', 'orders', '--owner', taken.owner, '--lease', '10s', '--json')).stdout);
    checkOutput('release', (await cli('release', 'orders', '--owner', taken.owner, '--json')).stdout);
    checkOutput('force-unlock', (await cli('force-unlock', 'fenced', '--yes', '--json')).stdout);
  }, SPAWNS_BOUND);

  it('hold: NDJSON events on stdout alone, on stderr with a command under the lock', async () => {
    const alone = await cli('hold', 'alone', '--lease', '300ms', '--json');
    expect(checkOutput('hold', alone.stdout).map((e) => (e as { event: string }).event)).toEqual(['acquiring', 'acquired', 'expired']);
    const child = await offline('hold', 'child', '--lease', '5s', '--json', '-p', String(fx.server.port), '--', 'echo', 'inside');
    expect(child.stdout).toBe('inside\n');
    expect(checkOutput('hold', child.stderr).map((e) => (e as { event: string }).event)).toContain('released');
  }, SPAWNS_BOUND);
});

describe('reading commands', () => {
  it('inspect, ls (one array, streamed), inspect --watch, --nodes, doctor', async () => {
    await cli('acquire', 'orders');
    await cli('acquire', 'tok', '--kind', 'token');
    const views = checkOutput('inspect', (await cli('inspect', 'orders', 'tok', 'gone', '--json')).stdout)[0] as { kind: string }[];
    expect(views.map((v) => v.kind)).toEqual(['reentrant', 'token', 'missing']);
    const ls = await cli('ls', '--json');
    expect((checkOutput('inspect', ls.stdout)[0] as unknown[]).length).toBe(2);
    expect(ls.stdout.split('\n').length).toBe(5); // "[", one line per lock, "]", and the final newline
    expect(checkOutput('inspect-watch', (await cli('inspect', 'orders', '--watch', '--json', '--count', '2', '--interval', '200ms')).stdout)).toHaveLength(2);
    const second = await startRedis();
    try {
      const nodes = `redis://127.0.0.1:${fx.server.port},redis://127.0.0.1:${second.port}`;
      checkOutput('across-nodes', (await offline('inspect', 'tok', '--nodes', nodes, '--json')).stdout);
      checkOutput('across-nodes', (await offline('ls', '--nodes', nodes, '--json')).stdout);
    } finally {
      await second.stop();
    }
    await fx.raw.hset('no-ttl', `${randomUUID()}:1`, '1'); // a Redisson lock with no TTL: doctor's error
    const doctor = await cli('doctor', '--json');
    expect((checkOutput('doctor', doctor.stdout)[0] as unknown[]).length).toBeGreaterThan(0);
    const who = checkOutput('who', (await cli('who', '*', '--sample', '1s', '--json')).stdout)[0] as { locks: { key: string }[] };
    expect(who.locks.map((l) => l.key).sort()).toEqual(['no-ttl', 'orders', 'tok']);
  }, SPAWNS_BOUND);

  it('trace: events, then the summary; and the same from a recording', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'redlock-cli-trace-')), 'trace.ndjson');
    const trace = spawnCli(['trace', '-p', String(fx.server.port), '--for', '4s', '--json', '--record', record], env);
    await trace.waitFor(/trace: following/);
    const taken = JSON.parse((await cli('acquire', 'traced', '--json')).stdout) as { owner: string };
    await cli('release', 'traced', '--owner', taken.owner);
    expect(await trace.exited).toBe(0);
    const lines = checkOutput('trace', trace.out()) as { type: string }[];
    expect(lines.map((l) => l.type)).toEqual([...lines.slice(0, -1).map(() => 'event'), 'summary']);
    expect(lines.length).toBeGreaterThan(2);
    const replayed = checkOutput('trace', (await offline('trace', '--from', record, '--json')).stdout) as { type: string }[];
    expect(replayed.filter((l) => l.type === 'event').length).toBe(lines.filter((l) => l.type === 'event').length);
  }, SPAWNS_BOUND);

  it('trace --from: a deadlock finding, a liveness one with its why, and a refusal on a data key', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'redlock-cli-trace-')), 'stuck.ndjson');
    const t0 = Date.UTC(2026, 10, 28, 14, 0, 0);
    const event = (kind: string, t: number, owner: string, extra: object = {}) => JSON.stringify({ type: 'event', kind, t: t0 + t, lock: 'jobs', owner, library: 'token', ...extra });
    const refusals = [0, 400, 800, 1200].map((t) => event('refused', 200 + t, 'tok-b', { holders: ['tok-a'] }));
    const onData = [0, 600, 1200].map((t) => JSON.stringify({ type: 'event', kind: 'refused', t: t0 + t, lock: 'cart:42', owner: 'tok-c', library: 'token', holders: [], data: true }));
    writeFileSync(record, [JSON.stringify({ type: 'redlock-cli-trace', version: 1, source: 'test', startedAt: t0 }), event('acquired', 0, 'tok-a', { count: 1 }), ...refusals, ...onData, ''].join('\n'));
    const lines = checkOutput('trace', (await offline('trace', '--from', record, '--json')).stdout) as { type: string; kind?: string; why?: string; liveness?: boolean }[];
    const found = lines.filter((l) => l.type === 'finding' && l.kind === 'deadlock').map((l) => [l.why, l.liveness]);
    expect(found).toEqual([['no-ttl', true], ['data-key', true]]);
  }, SPAWNS_BOUND);
});

describe('race, sandbox, scenario, target', () => {
  it('race on a given server', async () => {
    const race = await offline('race', 'r', '-u', `redis://127.0.0.1:${fx.server.port}`, '--clients', '2', '--duration', '500ms', '--json', '--yes');
    expect([0, 8]).toContain(race.code); // 8: the busy machine made it inconclusive, still the same shape
    checkOutput('race', race.stdout);
  }, SPAWNS_BOUND);

  it('sandbox up, status (one, all), a fault verb, down', async () => {
    checkOutput('sandbox-up', (await offline('sandbox', 'up', '--name', 'contracts', '--json')).stdout);
    checkOutput('sandbox-status', (await offline('sandbox', 'status', 'contracts', '--json')).stdout);
    expect(checkOutput('sandbox-status', (await offline('sandbox', 'status', '--json')).stdout)[0]).toHaveLength(1);
    const paused = checkOutput('sandbox-verb', (await offline('sandbox', 'pause', 'primary', '--for', '200ms', '--name', 'contracts', '--json')).stdout);
    expect((paused[0] as { actions: { verb: string }[] }).actions.map((a) => a.verb)).toEqual(['pause', 'resume']);
    checkOutput('sandbox-down', (await offline('sandbox', 'down', 'contracts', '--json')).stdout);
  }, SPAWNS_BOUND);

  it('scenario list, show, run, run --all', async () => {
    checkOutput('scenario-list', (await offline('scenario', 'list', '--json')).stdout);
    checkOutput('scenario-show', (await offline('scenario', 'show', 'expired-lease-misdeletion', '--json')).stdout);
    const run = await offline('scenario', 'run', 'expired-lease-misdeletion', '--variant', 'fixed', '--json');
    expect([0, 8]).toContain(run.code);
    checkOutput('scenario-run', run.stdout);
    const dir = mkdtempSync(join(tmpdir(), 'redlock-cli-scenarios-'));
    writeFileSync(join(dir, 'one.yaml'), readFileSync('scenarios/expired-lease-misdeletion.yaml'));
    const all = await offline('scenario', 'run', '--all', '--dir', dir, '--json');
    expect([0, 8]).toContain(all.code);
    checkOutput('scenario-run-all', all.stdout);
  }, SPAWNS_BOUND);

  it('target list and show', async () => {
    await offline('target', 'add', 'contracts', `redis://127.0.0.1:${fx.server.port}`);
    expect(checkOutput('target-list', (await offline('target', 'list', '--json')).stdout)[0]).toHaveLength(1);
    checkOutput('target-show', (await offline('target', 'show', 'contracts', '--json')).stdout);
  }, SPAWNS_BOUND);
});

describe('errors under --json', () => {
  it('a usage error, wherever --json stands, is one error object with exit 2', async () => {
    expect(checkError(await offline('inspect', '--json'), 2, 'usage')).toBe("missing required argument 'key'");
    checkError(await offline('inspect', 'k', '--bogus', '--json'), 2, 'usage');
    checkError(await offline('inspect', 'k', '--interval', 'soon', '--watch', '--json'), 2, 'usage');
  }, SPAWNS_BOUND);

  it('unreachable (3), not found (4) and the text line without --json', async () => {
    const closed = String(await freePort());
    const message = checkError(await offline('inspect', 'k', '-p', closed, '--json'), 3, 'unreachable');
    expect(message).toContain(`127.0.0.1:${closed}`);
    checkError(await cli('force-unlock', 'nothing', '--yes', '--json'), 4, 'not-found');
    const text = await offline('inspect', 'k', '-p', closed);
    expect([text.code, text.stderr]).toEqual([3, `redlock-cli: ${message}\n`]);
  }, SPAWNS_BOUND);
});

describe('a cancelled force-unlock', () => {
  it('is an error like the others: under --json one error object (5), and the lock stays', async () => {
    await cli('acquire', 'kept');
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    stdin.end('n\n');
    let stderr = '';
    const code = await run(['force-unlock', 'kept', '--json', '-p', String(fx.server.port)], {
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
      stdin,
      env,
    });
    expect(stderr).toMatch(/Force-unlock it\? \[y\/N\] \{/); // the prompt, answered "n" (no echo without a terminal)
    const errorLine = stderr.slice(stderr.indexOf('{'));
    checkError({ code, stdout: '', stderr: errorLine }, 5, 'not-acquired');
    expect(await fx.raw.exists('kept')).toBe(1);
  }, SPAWNS_BOUND);
});

// Last in the file (tests run in order): every contract has met real output above.
it('checked real output against every contract', () => {
  expect(JSON_CONTRACTS.map((c) => c.file).filter((f) => !checked.has(f))).toEqual([]);
});
