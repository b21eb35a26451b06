import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_KINDS } from '../../src/locks/types.js';
import { completionHome, exec, stubbedCli } from './completion-home.js';

// The bash script as bash runs it: sourced, then its function called with COMP_WORDS/COMP_CWORD
// the way readline fills them (split at COMP_WORDBREAKS), calling the built redlock-cli on PATH.
// Nothing here connects anywhere: REDIS_URL points at a closed port to prove completion never tries.

let dir: string;
let script: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ dir, script, env } = await completionHome('bash'));
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Every completion starts the built CLI, and node's start-up alone took 5-9 s at load 20-100 on 2
// cores: one completion gets COMPLETION_MS (then it is killed and fails by name), and a test gets
// room for its five completions; a hanging completion still fails, just not by the suite's 20 s.
const COMPLETION_MS = 20_000;
const TEST_MS = 5 * COMPLETION_MS;

/** COMPREPLY for these COMP_WORDS, the cursor in the last one. */
async function complete(...words: string[]): Promise<string[]> {
  return completeIn({}, ...words);
}

async function completeIn(extraEnv: NodeJS.ProcessEnv, ...words: string[]): Promise<string[]> {
  const program = `
    source "$1"; shift
    COMP_WORDS=(redlock-cli "$@"); COMP_CWORD=$#
    _redlock_cli_complete
    printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await exec('bash', ['--norc', '--noprofile', '-c', program, 'bash', script, ...words], { env: { ...env, ...extraEnv }, timeout: COMPLETION_MS, killSignal: 'SIGKILL' });
  return stdout.split('\n').filter((l) => l !== '');
}

describe('bash completion', { timeout: TEST_MS }, () => {
  it('registers itself for redlock-cli (file names only where __complete says they fit)', async () => {
    const { stdout } = await exec('bash', ['--norc', '-c', `source "${script}"; complete -p redlock-cli`], { env });
    expect(stdout.trim()).toBe('complete -F _redlock_cli_complete redlock-cli');
  });

  it('completes commands, never the hidden one', async () => {
    const all = await complete('');
    expect(all).toEqual(expect.arrayContaining(['acquire', 'hold', 'inspect', 'ls', 'doctor', 'sandbox', 'target', 'completion', 'help']));
    expect(all.filter((c) => c.startsWith('_'))).toEqual([]);
    expect(await complete('ins')).toEqual(['inspect']);
    expect(await complete('--no-color', 'sand')).toEqual(['sandbox']);
  });

  it('completes subcommands and their arguments', async () => {
    expect(await complete('sandbox', '')).toEqual(expect.arrayContaining(['up', 'down', 'status', 'kill', 'failover']));
    expect(await complete('target', '')).toEqual(['add', 'list', 'show', 'remove', 'use', 'help']);
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete('help', 'ho')).toEqual(['hold']);
  });

  it('completes options, also after a URL that bash split at its colons', async () => {
    expect(await complete('inspect', '--ta')).toEqual(['--target']);
    expect(await complete('inspect', 'k', '-u', 'redis', ':', '//h', ':', '1', '--ki')).toEqual(['--kind']);
    expect(await complete('target', 'add', 'p', 'redis', ':', '//h', ':', '1', '--sen')).toEqual(['--sentinel']);
    // An option already given is not offered again.
    expect(await complete('inspect', 'k', '--json', '--js')).toEqual([]);
  });

  it('completes lock kinds, with a space or an = before the value', async () => {
    expect(await complete('acquire', 'k', '--kind', '')).toEqual([...LOCK_KINDS]);
    expect(await complete('hold', 'k', '-k', 'f')).toEqual(['fair', 'fenced']);
    // bash splits --kind=f into --kind, =, f and replaces only the text after the =.
    expect(await complete('acquire', 'k', '--kind', '=', 'f')).toEqual(['fair', 'fenced']);
    expect(await complete('acquire', 'k', '--kind', '=')).toEqual([...LOCK_KINDS]);
  });

  it('completes saved target names for --target and target show/remove', async () => {
    expect(await complete('ls', '--target', '')).toEqual(['prod', 'staging']);
    expect(await complete('inspect', 'k', '--target', 'st')).toEqual(['staging']);
    expect(await complete('target', 'show', '')).toEqual(['prod', 'staging']);
    expect(await complete('target', 'rm', 'p')).toEqual(['prod']);
    expect(await complete('target', 'add', '')).toEqual([]);
  });

  it('answers commands, options and fixed values without starting redlock-cli; keys and targets ask it', async () => {
    const stub = stubbedCli(dir);
    expect(await completeIn(stub.env, 'ins')).toEqual(['inspect']);
    expect(await completeIn(stub.env, 'inspect', '--ki')).toEqual(['--kind']);
    expect(await completeIn(stub.env, 'acquire', 'k', '--kind', '=', 'f')).toEqual(['fair', 'fenced']);
    expect(await completeIn(stub.env, 'scenario', 'run', 'gc-')).toEqual(['gc-pause-no-fencing']);
    expect(await completeIn(stub.env, 'sandbox', 'help', 'st')).toEqual(['status', 'stall-replication']);
    expect(existsSync(stub.started)).toBe(false);
    // Where a key or a saved target goes, the script asks redlock-cli (here the stub, which fails: nothing).
    expect(await completeIn(stub.env, 'release', 'ord')).toEqual([]);
    expect(await completeIn(stub.env, 'ls', '--target', '')).toEqual([]);
    expect(readFileSync(stub.started, 'utf8')).toBe('__complete --keys bash =ord\n__complete --shell bash --files-line -- ls --target \n');
  });

  it('leaves the words after -- to bash (the command hold runs)', async () => {
    expect(await complete('hold', 'k', '--', '')).toEqual([]);
  });
});
