import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_KINDS } from '../../src/locks/types.js';
import { startRedis } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { ageKeyCaches, completionHome, exec, killGroup, killRunningShells, requireShell, runShell, stubbedCli } from './completion-home.js';

// The zsh script as zsh runs it on Tab: an interactive `zsh -f -i` in a pseudo-terminal (the
// zsh/zpty module, driven by a second zsh) loads compinit and the script, the line is typed and
// TAB pressed. TAB is bound to a widget that runs the real complete-word and then records the
// command line it left (a unique match is inserted), plus what was offered: compadd is wrapped to
// note the words that matched what is typed (the builtin's own -O filtering) before adding them
// as usual, and the -d lines the listing shows. The built redlock-cli is on PATH; REDIS_URL
// points at a closed port to prove Tab never connects.

let dir: string;
let work: string;
let script: string;
let env: NodeJS.ProcessEnv;

// Sourced by the interactive zsh before the completion is installed.
const CAPTURE = `
PS1='@@prompt@@ ' RPS1= LISTMAX=1000
unsetopt beep
print -r -- $$ > "$__CAPDIR/pid"
typeset -ga __matches __shown
compadd() {
  # Calls that only ask for matching (-O/-A/-D, as _path_files makes) are passed straight on.
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return; fi
  local -a matched shown
  local i=\${@[(i)-d]}
  (( i < $# )) && shown=("\${(@P)\${@[i+1]}}")
  builtin compadd -O matched -D shown "$@"
  __matches+=("\${matched[@]}") __shown+=("\${shown[@]}")
  builtin compadd "$@"
}
__capture() {
  __matches=() __shown=()
  zle complete-word
  print -r -- "$BUFFER" > "$__CAPDIR/buffer"
  print -rl -- "\${__matches[@]}" > "$__CAPDIR/matches"
  print -rl -- "\${__shown[@]}" > "$__CAPDIR/shown"
  BUFFER=
  print -n $'\\n@@done@@\\n'
}
zle -N __capture
bindkey '^I' __capture
`;

// zsh -f DRIVER capture-file install-command line: one interactive zsh, one TAB.
const DRIVER = `
zmodload zsh/zpty || { print -u2 'zsh has no zsh/zpty module'; exit 3 }
zpty z zsh -f -i || exit 4
# Typed, so echoed: the markers are split in what is typed and whole only in what is printed.
zpty -w z "source \${(q)1}; $2; print -r -- @@rea''dy@@"
zpty -r z out '*@@ready@@*' || exit 5
print -r -- "$out"
zpty -r z out '*@@prompt@@*' || exit 5
print -r -- "$out"
zpty -wn z "$3"$'\\t'
zpty -r z out '*@@done@@*' || exit 6
print -r -- "$out"
zpty -d z
`;

/** Kills a process group, if any of it is left. */
function readEnviron(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Runs zsh in its own process group, killed with everything it started when it overruns. */
function zsh(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return runShell('zsh', args, { env, work }, extraEnv);
}

interface Tab {
  /** The command line after TAB (a unique match is inserted, with a space after it). */
  readonly line: string;
  /** The words zsh matched against what was typed (in the order offered). */
  readonly matches: string[];
  /** The lines of the listing (`value  -- description` where there is one). */
  readonly shown: string[];
}

// compinit from the dump beforeAll made (-C: without checking $fpath again, 20 times faster).
const compinit = (): string => `autoload -U compinit && compinit -C -d ${join(dir, 'zcompdump')}`;
const INSTALL = {
  // The script written to a file and sourced after compinit.
  sourced: () => `${compinit()} && source '${script}'`,
  // As the script's own comment says: source <(redlock-cli completion zsh) after compinit.
  documented: () => `${compinit()} && source <(redlock-cli completion zsh)`,
  // Saved as _redlock-cli in a directory of $fpath before compinit, which finds it there and
  // autoloads it on the first Tab (a full compinit: the dump knows nothing of that directory).
  fpath: () => `fpath=(${join(dir, 'zfunc')} $fpath) && autoload -U compinit && compinit -u -D`,
};

/** Types `redlock-cli <line>` into an interactive zsh and presses TAB. */
async function tab(line: string, install: keyof typeof INSTALL = 'sourced', extraEnv: NodeJS.ProcessEnv = {}): Promise<Tab> {
  const capdir = mkdtempSync(join(dir, 'tab-'));
  try {
    const { code, output } = await zsh(['-f', join(dir, 'driver.zsh'), join(dir, 'capture.zsh'), INSTALL[install](), `redlock-cli ${line}`], { __CAPDIR: capdir, ...extraEnv });
    if (code !== 0 || !existsSync(join(capdir, 'shown'))) throw new Error(`zsh driver exited with ${code}; the terminal showed:\n${output}`);
    const lines = (name: string) => readFileSync(join(capdir, name), 'utf8').split('\n').filter((l) => l !== '');
    return { line: readFileSync(join(capdir, 'buffer'), 'utf8').replace(/\n$/, ''), matches: lines('matches'), shown: lines('shown') };
  } finally {
    // The interactive zsh is a session of its own: end it (and what it runs) if the driver died
    // first, checking by its environment that the pid is still that zsh.
    const pid = existsSync(join(capdir, 'pid')) ? Number(readFileSync(join(capdir, 'pid'), 'utf8')) : undefined;
    if (pid && readEnviron(pid).includes(`__CAPDIR=${capdir}`)) killGroup(pid);
  }
}

const matches = async (line: string): Promise<string[]> => (await tab(line)).matches;

beforeAll(async () => {
  await requireShell('zsh', ['-f', '-c', 'zmodload zsh/zpty'], 'zsh (with its zsh/zpty module)');
  ({ dir, work, script, env } = await completionHome('zsh', (home) => ({ ZDOTDIR: home, TERM: 'xterm' })));
  writeFileSync(join(dir, 'capture.zsh'), CAPTURE);
  writeFileSync(join(dir, 'driver.zsh'), DRIVER);
  await exec('zsh', ['-f', '-c', `autoload -U compinit && compinit -u -d ${join(dir, 'zcompdump')}`], { env });
  mkdirSync(join(dir, 'zfunc'));
  copyFileSync(script, join(dir, 'zfunc', '_redlock-cli'));
}, 60_000);

afterAll(() => {
  killRunningShells();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('zsh completion', () => {
  it('works installed either way the script says: sourced after compinit, or autoloaded from $fpath', async () => {
    const [sourced, documented, fpath] = await Promise.all([tab('ins'), tab('ins', 'documented'), tab('sand', 'fpath')]);
    expect(sourced).toEqual({ line: 'redlock-cli inspect ', matches: ['inspect'], shown: [expect.stringMatching(/^inspect {2}-- decode any lock found in Redis/)] });
    expect(documented.line).toBe('redlock-cli inspect ');
    expect(fpath.line).toBe('redlock-cli sandbox ');
  });

  it('completes commands with their descriptions, never the hidden one', async () => {
    const [all, afterOption] = await Promise.all([tab(''), tab('--no-color sand')]);
    expect(all.matches).toEqual(expect.arrayContaining(['acquire', 'hold', 'inspect', 'ls', 'doctor', 'sandbox', 'scenario', 'target', 'completion', 'help']));
    expect(all.matches.filter((c) => c.startsWith('_'))).toEqual([]);
    expect(all.shown).toHaveLength(all.matches.length);
    expect(all.shown.every((l) => / {2}-- \S/.test(l))).toBe(true);
    expect(all.line).toBe('redlock-cli ');
    expect(afterOption.line).toBe('redlock-cli --no-color sandbox ');
  });

  it('completes subcommands', async () => {
    const [sandbox, target, help] = await Promise.all([matches('sandbox '), matches('target '), tab('help ho')]);
    expect(sandbox).toEqual(expect.arrayContaining(['up', 'status', 'down', 'kill', 'pause', 'failover', 'help']));
    expect(target).toEqual(['add', 'list', 'show', 'remove', 'use', 'help']);
    expect(help.line).toBe('redlock-cli help hold ');
  });

  it('completes options, each only until it is given', async () => {
    const [lease, target, given] = await Promise.all([tab('acquire --le'), tab('inspect k -u redis://h:1 --ta'), matches('inspect k --json --js')]);
    expect(lease).toEqual({ line: 'redlock-cli acquire --lease ', matches: ['--lease'], shown: [expect.stringMatching(/^--lease {2}-- .*how long the lock lives/)] });
    expect(target.line).toBe('redlock-cli inspect k -u redis://h:1 --target ');
    // Nothing from redlock-cli: zsh falls back to file names, and none starts with --js.
    expect(given).toEqual([]);
  });

  it('completes lock kinds, with a space or an = before the value', async () => {
    const [all, glued, unique] = await Promise.all([matches('acquire k --kind '), matches('acquire k --kind=f'), tab('hold k -k reen')]);
    expect(all).toEqual([...LOCK_KINDS]);
    expect(glued).toEqual(['--kind=fair', '--kind=fenced']);
    expect(unique.line).toBe('redlock-cli hold k -k reentrant ');
  });

  it('completes shipped scenario names', async () => {
    const shipped = readdirSync('scenarios').filter((f) => /\.ya?ml$/.test(f)).map((f) => f.replace(/\.ya?ml$/, '')).sort();
    const [all, gc] = await Promise.all([matches('scenario run '), tab('scenario run gc-')]);
    expect(all).toEqual(shipped);
    expect(gc.line).toBe('redlock-cli scenario run gc-pause-no-fencing ');
  });

  it('completes saved target names, described by their URLs (no password: none was saved)', async () => {
    const [ls, inspect, rm] = await Promise.all([tab('ls --target '), tab('inspect k --target st'), tab('target rm p')]);
    expect(ls.matches).toEqual(['prod', 'staging']);
    expect(ls.shown).toEqual(['prod  -- rediss://app@10.0.0.5:6380 standalone', 'staging  -- redis://10.0.0.9:6379 standalone']);
    expect(inspect.line).toBe('redlock-cli inspect k --target staging ');
    expect(rm.line).toBe('redlock-cli target rm prod ');
  });

  it('answers commands, options and fixed values without starting redlock-cli; keys ask it', async () => {
    const stub = stubbedCli(dir);
    const [ins, kind, value] = await Promise.all([tab('ins', 'sourced', stub.env), tab('inspect --ki', 'sourced', stub.env), tab('hold k -k reen', 'sourced', stub.env)]);
    expect(ins.line).toBe('redlock-cli inspect ');
    expect(kind.line).toBe('redlock-cli inspect --kind ');
    expect(value.line).toBe('redlock-cli hold k -k reentrant ');
    expect(existsSync(stub.started)).toBe(false);
    // A key goes here: the script asks redlock-cli (the stub fails: nothing, and no file names).
    const key = await tab('release j', 'sourced', stub.env);
    expect(key.line).toBe('redlock-cli release j');
    expect(readFileSync(stub.started, 'utf8')).toBe('__complete --keys zsh =j\n');
  });

  it('falls back to file names where redlock-cli offers nothing (the command hold runs)', async () => {
    expect((await tab('hold k -- j')).line).toBe('redlock-cli hold k -- job.sh ');
  });

  it('offers lock keys from the server on the line where a key goes, never file names', async () => {
    const server = await startRedis();
    // Room for a busy machine: what is offered is the point here (the default budget: test/commands/completion.test.ts).
    env.REDLOCK_CLI_COMPLETE_MS = '10000';
    try {
      expect((await runCli(['acquire', 'jobs:nightly', '--lease', '5m', '-p', String(server.port)], tempStateEnv())).code).toBe(0);
      const [key, none] = await Promise.all([tab(`release -p ${server.port} jo`), tab('release j')]);
      expect(key.line).toBe(`redlock-cli release -p ${server.port} jobs:nightly `);
      // REDIS_URL is a closed port: no keys, and not job.sh either.
      expect(none.line).toBe('redlock-cli release j');
      expect(none.matches).toEqual([]);
      // Warm: the script alone answers (the stub is never started).
      await ageKeyCaches(env, -60_000);
      const fresh = stubbedCli(join(dir, 'fresh'));
      expect((await tab(`release -p ${server.port} jo`, 'sourced', fresh.env)).line).toBe(`redlock-cli release -p ${server.port} jobs:nightly `);
      expect(existsSync(fresh.started)).toBe(false);
      // Stale: it still answers at once. (Whether it started the refresh is bash's and fish's test
      // to say: tab() ends the terminal's zsh with its process group, which the refresh's sh is in.)
      await ageKeyCaches(env);
      const stale = stubbedCli(join(dir, 'stale'));
      expect((await tab(`release -p ${server.port} jo`, 'sourced', stale.env)).line).toBe(`redlock-cli release -p ${server.port} jobs:nightly `);
    } finally {
      delete env.REDLOCK_CLI_COMPLETE_MS;
      await server.stop();
    }
  });
});
