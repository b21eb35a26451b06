import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { commandTree, shippedScenarios } from '../../src/commands/completion-tree.js';
import { completeWords } from '../../src/core/completion.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { prefixPattern } from '../../src/commands/completion-keys.js';
import { KEY_BUDGET_MS, keyBudgetMs } from '../../src/commands/completion-cached-keys.js';

let env: Record<string, string | undefined>;

beforeAll(async () => {
  env = tempStateEnv({ XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'redlock-cli-config-')) });
  expect((await runCli(['target', 'add', 'prod', 'rediss://app:secret@10.0.0.5:6380', '--cluster', '10.0.0.5:7000', '--save-password'], env)).code).toBe(0);
});

/** The candidates and the directive line every answer ends with (whether file names fit). */
const answer = async (shell: string, ...words: string[]): Promise<{ candidates: string[]; directive: string }> => {
  const result = await runCli(['__complete', '--shell', shell, '--files-line', '--', ...words], env);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const lines = result.stdout.split('\n').slice(0, -1);
  return { candidates: lines.slice(0, -1).filter((l) => l !== ''), directive: lines[lines.length - 1]! };
};
const complete = async (shell: string, ...words: string[]): Promise<string[]> => (await answer(shell, ...words)).candidates;

/** The names in a help screen's "Commands:" section. */
async function helpCommands(path: string[]): Promise<string[]> {
  const { stdout } = await runCli([...path, '--help'], env);
  const section = stdout.split(/^Commands:\n/m)[1] ?? '';
  return [...section.split(/\n\S/)[0]!.matchAll(/^ {2}(\S+?)(?:\|\S+)?(?: |$)/gm)].map((m) => m[1]!);
}

describe('completion scripts', () => {
  it.each(['bash', 'zsh', 'fish'])('completion %s prints a script that asks __complete', async (shell) => {
    const result = await runCli(['completion', shell], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`__complete --shell ${shell} --files-line --`);
    expect(result.stdout).toMatch(shell === 'bash' ? /\ncomplete -F _redlock_cli_complete redlock-cli\n$/ : shell === 'zsh' ? /compdef _redlock-cli redlock-cli/ : /\ncomplete -c redlock-cli -f -a '\(__redlock_cli_complete\)'\n$/);
  });

  it('an unknown shell is a usage error', async () => {
    const result = await runCli(['completion', 'tcsh'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/tcsh.*bash, zsh, fish/);
  });
});

describe('__complete', () => {
  it('offers every command the help lists, at every level of the tree, and hides itself', async () => {
    const top = await helpCommands([]);
    expect(top).toEqual(expect.arrayContaining(['acquire', 'inspect', 'sandbox', 'target', 'completion', 'help']));
    expect((await complete('bash', '')).sort()).toEqual([...top].sort());
    for (const name of top.filter((n) => n !== 'help')) {
      const subs = await helpCommands([name]);
      expect((await complete('bash', name, '')).filter((c) => !c.startsWith('-')).sort(), name).toEqual(subs.length > 0 ? [...subs].sort() : expect.any(Array));
    }
  });

  it('zsh and fish get "value<TAB>description"; target descriptions mask the password', async () => {
    expect(await complete('zsh', 'insp')).toEqual([expect.stringMatching(/^inspect\tdecode any lock found in Redis/)]);
    expect(await complete('fish', 'acquire', 'k', '--kind=re')).toEqual(['--kind=reentrant', '--kind=read', '--kind=redlock', '--kind=redis-py']);
    const targets = await complete('fish', 'ls', '--target', '');
    expect(targets).toEqual(['prod\trediss://app:***@10.0.0.5:6380 cluster 10.0.0.5:7000']);
  });

  it('trace completes with its summary and its options', async () => {
    expect(await complete('zsh', 'tra')).toEqual([expect.stringMatching(/^trace\tfollow every lock operation on a real server/)]);
    expect((await complete('bash', 'trace', '--f')).sort()).toEqual(['--fail-on', '--finding', '--for', '--from']);
  });

  it('help completes the commands beside it, at the top and in a group', async () => {
    expect(await complete('bash', 'help', 'ins')).toEqual(['inspect']);
    expect((await complete('bash', 'sandbox', 'help', 'st')).sort()).toEqual(['stall-replication', 'status']);
  });

  it('inspect --kind offers the kinds inspect decodes, lock commands the lock kinds', async () => {
    expect(await complete('bash', 'inspect', 'k', '--kind', 's')).toEqual(['semaphore']);
    expect(await complete('bash', 'release', 'k', '--kind', 's')).toEqual(['spin', 'spring', 'shedlock']);
  });
});

describe('shipped scenario names', () => {
  it('are the .yaml and .yml files of the scenarios dir, sorted, without extension', () => {
    const dir = mkdtempSync(join(tmpdir(), 'redlock-cli-scenarios-'));
    for (const f of ['zombie-reader.yaml', 'expired-lease.yml', 'README.md', 'notes.txt']) writeFileSync(join(dir, f), '');
    expect(shippedScenarios(dir).map((c) => c.value)).toEqual(['expired-lease', 'zombie-reader']);
    expect(shippedScenarios(join(dir, 'missing'))).toEqual([]);
  });

  it("default to the package's own scenarios/", () => {
    const shipped = readdirSync('scenarios').filter((f) => /\.ya?ml$/.test(f)).map((f) => f.replace(/\.ya?ml$/, '')).sort();
    expect(shippedScenarios().map((c) => c.value)).toEqual(shipped);
  });
});

describe('commandTree', () => {
  it('marks scenario arguments (by name) and target show/remove names as completing from their sources', () => {
    const program = new Command('redlock-cli');
    const scenario = program.command('scenario');
    scenario.command('run').argument('[scenario]').option('--variant <name>');
    scenario.command('show').argument('<name>');
    const target = program.command('target');
    target.command('show').argument('<name>');
    target.command('add').argument('<name>').argument('<url>');
    const sources = { scenario: () => [{ value: 'failover-lost-lock' }], target: () => [{ value: 'prod' }] };
    const tab = (...words: string[]) => completeWords(commandTree(program), words, sources).map((c) => c.value);
    expect(tab('scenario', 'run', '')).toEqual(['failover-lost-lock']);
    expect(tab('scenario', 'show', '')).toEqual(['failover-lost-lock']);
    expect(tab('scenario', 'run', '--variant', '')).toEqual([]);
    expect(tab('target', 'show', '')).toEqual(['prod']);
    expect(tab('target', 'add', '')).toEqual([]);
  });
});

describe('lock keys where a key goes', () => {
  let server: RedisServer;
  // Room for a busy machine: what is offered is the point here, the default budget is tested below.
  const slow = { REDLOCK_CLI_COMPLETE_MS: '10000' };
  beforeAll(async () => {
    Object.assign(env, slow);
    server = await startRedis();
    for (const key of ['orders:1', 'orders:2', 'payments']) {
      expect((await runCli(['acquire', key, '--lease', '5m', '-p', String(server.port)], env)).code).toBe(0);
    }
    // Not a lock: a list is never offered as one.
    const { Redis } = await import('ioredis');
    const raw = new Redis({ port: server.port, host: '127.0.0.1' });
    await raw.rpush('orders:queue', 'a');
    raw.disconnect();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('offers the locks on the server the line names, described by their kind, and no file names', async () => {
    const port = String(server.port);
    expect(await answer('fish', 'inspect', '-p', port, '')).toEqual({
      candidates: ['orders:1\treentrant', 'orders:2\treentrant', 'payments\treentrant'],
      directive: ':',
    });
    expect(await complete('bash', 'release', '-u', `redis://127.0.0.1:${port}`, 'ord')).toEqual(['orders:1', 'orders:2']);
    // Also from REDIS_URL, with nothing on the line; and a prefix with glob characters is literal.
    const fromEnv = await runCli(['__complete', '--shell', 'zsh', '--files-line', '--', 'hold', 'pay'], { ...env, ...slow, REDIS_URL: `redis://127.0.0.1:${port}` });
    expect(fromEnv.stdout).toBe('payments\treentrant\n:\n');
    expect(await complete('bash', 'inspect', '-p', port, 'orders:[')).toEqual([]);
    expect(prefixPattern('a*b?[c]\\')).toBe('a\\*b\\?\\[c\\]\\\\*');
  });

  it('a Tab with no cache yet waits for its refresh only when REDLOCK_CLI_COMPLETE_MS asks', () => {
    expect(keyBudgetMs({})).toBe(0);
    expect(keyBudgetMs({ REDLOCK_CLI_COMPLETE_MS: '250' })).toBe(250);
    expect(keyBudgetMs({ REDLOCK_CLI_COMPLETE_MS: '0' })).toBe(0);
  });

  it('offers nothing, and still no file names, when the server does not answer; the Tab stays bounded', async () => {
    delete env.REDLOCK_CLI_COMPLETE_MS;
    const started = performance.now();
    expect(await answer('zsh', 'inspect', '-p', '1', '')).toEqual({ candidates: [], directive: ':' });
    // The lookup gives up after KEY_BUDGET_MS; the bound here is loose for a busy machine.
    expect(performance.now() - started).toBeLessThan(KEY_BUDGET_MS + 2000);
  });

  it('says file names fit only where a file goes: the command hold runs, a scenario file, a certificate', async () => {
    expect((await answer('bash', 'hold', 'k', '--', 'j')).directive).toBe(':files');
    expect((await answer('bash', 'scenario', 'run', 'x')).directive).toBe(':files');
    expect((await answer('bash', 'inspect', 'k', '--cacert', '')).directive).toBe(':files');
    expect((await answer('bash', 'acquire', 'k', '--kind', '')).directive).toBe(':');
    expect((await answer('bash', 'ls', '--target', '')).directive).toBe(':');
    expect((await answer('bash', 'insp')).directive).toBe(':');
    // A script saved before --files-line reads every line as a candidate: it gets no directive.
    expect((await runCli(['__complete', '--shell', 'bash', '--', 'insp'], env)).stdout).toBe('inspect\n');
  });
});
