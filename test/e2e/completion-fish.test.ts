import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_KINDS } from '../../src/locks/types.js';
import { ageKeyCaches, completionHome, killRunningShells, requireShell, runShell, stubbedCli, stubLines } from './completion-home.js';
import { startRedis } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// The fish script as fish runs it: sourced (or autoloaded from the user's completions dir), then
// asked with `complete -C "<command line>"`, which runs the same completion machinery as Tab
// without a terminal and prints `candidate<TAB>description` lines after fish's own filtering.
// The built redlock-cli is on PATH; REDIS_URL points at a closed port to prove Tab never connects.

let dir: string;
let work: string;
let script: string;
let env: NodeJS.ProcessEnv;

/** fish's stdout; a non-zero exit is an error. */
async function fish(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const run = await runShell('fish', args, { env, work }, extraEnv);
  if (run.code !== 0) throw new Error(`fish exited with ${run.code}: ${run.output}`);
  return run.stdout;
}

interface Completion {
  readonly value: string;
  readonly description: string | undefined;
}

const parse = (stdout: string): Completion[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const tab = l.indexOf('\t');
      return tab < 0 ? { value: l, description: undefined } : { value: l.slice(0, tab), description: l.slice(tab + 1) };
    });

/** What Tab offers after `redlock-cli <line>` with the script sourced from its file. */
async function complete(line: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Completion[]> {
  return parse(await fish(['--no-config', '-c', 'source $argv[1]; and complete -C $argv[2]', script, `redlock-cli ${line}`], extraEnv));
}

const values = async (line: string): Promise<string[]> => (await complete(line)).map((c) => c.value);

beforeAll(async () => {
  await requireShell('fish', ['--version']);
  ({ dir, work, script, env } = await completionHome('fish', (home) => ({ XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache') })));
}, 60_000);

afterAll(() => {
  killRunningShells();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fish completion', () => {
  it('works installed either way the help says: piped to source, or saved in the completions dir', async () => {
    // Saved, it is autoloaded on first use from $XDG_CONFIG_HOME/fish/completions (the second
    // fish reads its config, from the temp dirs; the first one none).
    mkdirSync(join(dir, 'config', 'fish', 'completions'), { recursive: true });
    copyFileSync(script, join(dir, 'config', 'fish', 'completions', 'redlock-cli.fish'));
    const [piped, saved] = await Promise.all([
      fish(['--no-config', '-c', 'redlock-cli completion fish | source; and complete -C "redlock-cli ins"']),
      fish(['-c', 'complete -C "redlock-cli sand"']),
    ]);
    expect(parse(piped)).toEqual([{ value: 'inspect', description: expect.stringMatching(/^decode any lock found in Redis/) }]);
    expect(parse(saved)).toEqual([{ value: 'sandbox', description: expect.any(String) }]);
  });

  it('completes commands with their descriptions, never the hidden one', async () => {
    const [all, ins, afterOption] = await Promise.all([complete(''), complete('ins'), values('--no-color sand')]);
    expect(all.map((c) => c.value)).toEqual(expect.arrayContaining(['acquire', 'hold', 'inspect', 'ls', 'doctor', 'sandbox', 'scenario', 'target', 'completion', 'help']));
    expect(all.filter((c) => c.value.startsWith('_'))).toEqual([]);
    expect(all.every((c) => c.description)).toBe(true);
    expect(ins).toEqual([{ value: 'inspect', description: expect.stringMatching(/^decode any lock found in Redis/) }]);
    expect(afterOption).toEqual(['sandbox']);
  });

  it('completes subcommands', async () => {
    const [sandbox, target, completion, help] = await Promise.all([values('sandbox '), values('target '), values('completion '), values('help ho')]);
    expect(sandbox).toEqual(expect.arrayContaining(['up', 'status', 'down', 'kill', 'pause', 'failover', 'help']));
    // fish sorts what it offers.
    expect(target).toEqual(['add', 'help', 'list', 'remove', 'show', 'use']);
    expect(completion).toEqual(['bash', 'fish', 'zsh']);
    expect(help).toEqual(['hold']);
  });

  it('completes options, each only until it is given', async () => {
    const [lease, target, given] = await Promise.all([complete('acquire --le'), values('inspect k -u redis://h:1 --ta'), values('inspect k --json --js')]);
    expect(lease).toEqual([{ value: '--lease', description: expect.stringMatching(/how long the lock lives/) }]);
    expect(target).toEqual(['--target']);
    expect(given).toEqual([]);
  });

  it('completes lock kinds, with a space or an = before the value', async () => {
    const [all, short, glued] = await Promise.all([values('acquire k --kind '), values('hold k -k f'), values('acquire k --kind=f')]);
    expect(all).toEqual([...LOCK_KINDS].sort());
    expect(short).toEqual(['fair', 'fenced']);
    expect(glued).toEqual(['--kind=fair', '--kind=fenced']);
  });

  it('completes shipped scenario names', async () => {
    const shipped = readdirSync('scenarios').filter((f) => /\.ya?ml$/.test(f)).map((f) => f.replace(/\.ya?ml$/, '')).sort();
    const [all, gc] = await Promise.all([values('scenario run '), values('scenario run gc-')]);
    expect(all).toEqual(shipped);
    expect(gc).toEqual(['gc-pause-no-fencing']);
  });

  it('completes saved target names, described by their URLs (no password: none was saved)', async () => {
    const [ls, inspect, show, rm] = await Promise.all([complete('ls --target '), values('inspect k --target st'), values('target show '), values('target rm p')]);
    expect(ls).toEqual([
      { value: 'prod', description: 'rediss://app@10.0.0.5:6380 standalone' },
      { value: 'staging', description: 'redis://10.0.0.9:6379 standalone' },
    ]);
    expect(inspect).toEqual(['staging']);
    expect(show).toEqual(['prod', 'staging']);
    expect(rm).toEqual(['prod']);
  });

  it('answers commands, options and fixed values without starting redlock-cli; keys and targets ask it', async () => {
    const stub = stubbedCli(dir);
    const [ins, kind, values, scenario] = await Promise.all([
      complete('ins', stub.env),
      complete('inspect --ki', stub.env),
      complete('acquire k --kind=f', stub.env),
      complete('scenario run gc-', stub.env),
    ]);
    expect(ins).toEqual([{ value: 'inspect', description: expect.stringMatching(/^decode any lock found in Redis/) }]);
    expect(kind).toEqual([{ value: '--kind', description: expect.stringMatching(/^read the data as this kind/) }]);
    expect(values.map((c) => c.value)).toEqual(['--kind=fair', '--kind=fenced']);
    expect(scenario.map((c) => c.value)).toEqual(['gc-pause-no-fencing']);
    expect(existsSync(stub.started)).toBe(false);
    // A key goes here: the script asks redlock-cli (the stub fails: nothing, and no file names).
    expect(await complete('release j', stub.env)).toEqual([]);
    expect(readFileSync(stub.started, 'utf8')).toBe('__complete --keys fish =j\n');
  });

  it('falls back to file names where redlock-cli offers nothing (the command hold runs)', async () => {
    expect(await values('hold k -- j')).toEqual(['job.sh']);
  });

  it('offers lock keys from the server on the line where a key goes, never file names', async () => {
    const server = await startRedis();
    // Room for a busy machine: what is offered is the point here (the default budget: test/commands/completion.test.ts).
    env.REDLOCK_CLI_COMPLETE_MS = '10000';
    try {
      for (const key of ['jobs:nightly', 'jobs:hourly']) {
        expect((await runCli(['acquire', key, '--lease', '5m', '-p', String(server.port)], tempStateEnv())).code).toBe(0);
      }
      const [keys, none] = await Promise.all([complete(`inspect -p ${server.port} jobs:`), values('inspect j')]);
      expect(keys).toEqual([
        { value: 'jobs:hourly', description: 'reentrant' },
        { value: 'jobs:nightly', description: 'reentrant' },
      ]);
      // REDIS_URL is a closed port: no keys, and not job.sh either.
      expect(none).toEqual([]);
      // Warm: the script alone answers (the stub is never started); stale: it answers, and starts
      // redlock-cli beside the Tab, which is still held when the Tab is over.
      const nightly = [{ value: 'jobs:nightly', description: 'reentrant' }];
      await ageKeyCaches(env, -60_000);
      const fresh = stubbedCli(join(dir, 'fresh'));
      expect(await complete(`inspect -p ${server.port} jobs:n`, fresh.env)).toEqual(nightly);
      expect(existsSync(fresh.started)).toBe(false);
      await ageKeyCaches(env);
      const go = join(dir, 'go-stale');
      const stale = stubbedCli(join(dir, 'stale'), go);
      try {
        expect(await complete(`inspect -p ${server.port} jobs:n`, stale.env)).toEqual(nightly);
        expect(await stubLines(stale.started, 1)).toEqual([`__complete --keys fish =jobs:n --port ${server.port}`]);
      } finally {
        writeFileSync(go, '');
      }
      expect(await stubLines(stale.started, 2)).toEqual([`__complete --keys fish =jobs:n --port ${server.port}`, 'finished']);
    } finally {
      delete env.REDLOCK_CLI_COMPLETE_MS;
      await server.stop();
    }
  });
});
