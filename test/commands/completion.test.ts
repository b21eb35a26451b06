import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { commandTree, shippedScenarios } from '../../src/commands/completion-tree.js';
import { completeWords } from '../../src/core/completion.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

let env: Record<string, string | undefined>;

beforeAll(async () => {
  env = tempStateEnv({ XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'redlock-cli-config-')) });
  expect((await runCli(['target', 'add', 'prod', 'rediss://app:secret@10.0.0.5:6380', '--cluster', '10.0.0.5:7000', '--save-password'], env)).code).toBe(0);
});

const complete = async (shell: string, ...words: string[]): Promise<string[]> => {
  const result = await runCli(['__complete', '--shell', shell, '--', ...words], env);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return result.stdout.split('\n').filter((l) => l !== '');
};

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
    expect(result.stdout).toContain(`__complete --shell ${shell} --`);
    expect(result.stdout).toMatch(shell === 'bash' ? /\ncomplete -o default -F _redlock_cli_complete redlock-cli\n$/ : shell === 'zsh' ? /compdef _redlock-cli redlock-cli/ : /\ncomplete -c redlock-cli -f -a '\(__redlock_cli_complete\)'\n$/);
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
    expect((await complete('bash', 'trace', '--f')).sort()).toEqual(['--for', '--from']);
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
