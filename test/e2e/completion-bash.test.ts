import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_KINDS } from '../../src/locks/types.js';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { runCli } from '../helpers/run-cli.js';

// The bash script as bash runs it: sourced, then its function called with COMP_WORDS/COMP_CWORD
// the way readline fills them (split at COMP_WORDBREAKS), calling the built redlock-cli on PATH.
// Nothing here connects anywhere: REDIS_URL points at a closed port to prove completion never tries.

const exec = promisify(execFile);
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'redlock-cli-bash-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'redlock-cli'), `#!/bin/sh\nexec "${process.execPath}" "${resolve(BIN)}" "$@"\n`);
  chmodSync(join(bin, 'redlock-cli'), 0o755);
  env = { PATH: `${bin}:${process.env.PATH}`, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_STATE_HOME: join(dir, 'state'), REDIS_URL: 'redis://127.0.0.1:1' };
  for (const [name, url] of [['prod', 'rediss://app:secret@10.0.0.5:6380'], ['staging', 'redis://10.0.0.9']]) {
    expect((await runCli(['target', 'add', name!, url!], env)).code).toBe(0);
  }
  const script = await exec(process.execPath, [BIN, 'completion', 'bash'], { env });
  writeFileSync(join(dir, 'redlock-cli.bash'), script.stdout);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** COMPREPLY for these COMP_WORDS, the cursor in the last one. */
async function complete(...words: string[]): Promise<string[]> {
  const program = `
    source "$1"; shift
    COMP_WORDS=(redlock-cli "$@"); COMP_CWORD=$#
    _redlock_cli_complete
    printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await exec('bash', ['--norc', '--noprofile', '-c', program, 'bash', join(dir, 'redlock-cli.bash'), ...words], { env });
  return stdout.split('\n').filter((l) => l !== '');
}

describe('bash completion', () => {
  it('registers itself for redlock-cli, falling back to file names', async () => {
    const { stdout } = await exec('bash', ['--norc', '-c', `source "${join(dir, 'redlock-cli.bash')}"; complete -p redlock-cli`], { env });
    expect(stdout.trim()).toBe('complete -o default -F _redlock_cli_complete redlock-cli');
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
    expect(await complete('target', '')).toEqual(['add', 'list', 'show', 'remove', 'help']);
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

  it('leaves the words after -- to bash (the command hold runs)', async () => {
    expect(await complete('hold', 'k', '--', '')).toEqual([]);
  });
});
