// At 70 and 120 columns of a real terminal (a private tmux), no help text, summary or table line
// is broken inside a word by the terminal: every line we print fits, so tmux never soft-wraps one.
// tmux marks a soft-wrapped line: `capture-pane -J` joins it with the next, so the joined capture
// has fewer lines than the plain one exactly when some line ran past the edge. Against a real
// redis-server with a CJK key, long keys and a finding, and a sandbox for `sandbox status`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import type { Redis } from 'ioredis';
import { buildProgram } from '../../src/cli/program.js';
import { ALL_COMMANDS } from '../../src/repl/entry.js';
import { displayWidth } from '../../src/core/text-layout.js';
import { privateTmux } from '../../scripts/screens/tmux.mjs';
import { ensureBuilt } from '../helpers/build.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const WIDTHS = [70, 120] as const;
const BIN = resolve('bin/redlock-cli.js');
const work = mkdtempSync(join(tmpdir(), 'redlock-widths-'));
const socket = `redlock-widths-${process.pid}`;
// One state dir per width: each pane runs its own scenario sandbox, and has its own sandbox to show.
const envs = new Map(WIDTHS.map((w) => [w, tempStateEnv()]));
let server: RedisServer;
let raw: Redis;
let tmux: ReturnType<typeof privateTmux> | undefined;
const captures = new Map<number, { plain: string[]; joined: string[] }>();

/** Every command path of the tree (`[]`, `['sandbox', 'up']`, ...), for `--help`. */
function commandPaths(cmd: Command, path: string[] = []): string[][] {
  return [path, ...cmd.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

const raw_tmux = (...args: string[]): string => execFileSync('tmux', ['-u', '-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });

beforeAll(async () => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  } catch {
    throw new Error('tmux is not installed: the width check runs in a real terminal (apt-get install tmux; .ci/run installs it)');
  }
  ensureBuilt();
  server = await startRedis();
  raw = rawClient(server);
  const owner = '11111111-1111-4111-8111-111111111111:1';
  for (const key of ['注文ロック', 'orders:2024:eu-west-1:customer-4242:invoice-lock', 'pay']) {
    await raw.hset(key, owner, '1');
    await raw.pexpire(key, 600_000);
  }
  await raw.hset('stuck-without-ttl', owner, '1'); // a doctor finding
  for (const env of envs.values()) {
    const sandbox = await runCli(['sandbox', 'up', '--name', 'widths', '--topology', 'replicated'], env);
    expect(sandbox.code, sandbox.stderr).toBe(0);
  }

  const helps = commandPaths(await buildProgram({ stdout: { write: () => true }, stderr: { write: () => true }, env: {}, exitCode: 0 }, ALL_COMMANDS))
    .filter((p) => p.at(-1) !== 'help')
    .map((p) => [...p, '--help']);
  // Help for every command in one process (node start-up 40 times over would take minutes on a
  // busy machine), printed by the real program on the pane's real terminal.
  writeFileSync(
    join(work, 'helps.mjs'),
    `import { run } from ${JSON.stringify(resolve('dist/main.js'))};\n` +
      `for (const argv of ${JSON.stringify(helps)}) await run(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env });\n`,
  );
  const cli = (args: string) => `node ${BIN} ${args}`;
  const url = `--url ${server.url}`;
  const script = [
    `node ${join(work, 'helps.mjs')}`,
    cli(`ls ${url}`),
    cli(`inspect 注文ロック orders:2024:eu-west-1:customer-4242:invoice-lock ${url}`),
    cli(`doctor ${url}`),
    cli('sandbox status widths'),
    cli('target list'),
    cli('scenario list'),
    cli('scenario show fair-lock-dead-waiter'),
    cli(`race pay ${url} --clients 2 --duration 1s --lease 1s --hold 5ms --yes`),
    cli('scenario run setnx-expire-crash'),
    'echo __DONE__',
    'sleep 600',
  ].join('; ');
  tmux = privateTmux(socket, { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', NO_COLOR: '1' });
  // A first session starts the server; panes made after it keep 100k lines of history.
  tmux.session('init', 'sleep 600', { width: 80, height: 10 });
  raw_tmux('set-option', '-g', 'history-limit', '100000');
  const panes = WIDTHS.map((w) => ({
    w,
    pane: tmux!.session(`w${w}`, `sh -c '${script.replace(/'/g, "'\\''")}'`, { width: w, height: 40, env: { XDG_STATE_HOME: envs.get(w)!.XDG_STATE_HOME! } }),
  }));
  for (const { w, pane } of panes) {
    const capture = (joined: boolean) => raw_tmux('capture-pane', '-p', ...(joined ? ['-J'] : []), '-S', '-', '-t', `w${w}`);
    await pane.until(() => capture(false).includes('__DONE__'), `the commands at ${w} columns`, 150_000);
    pane.track();
    const lines = (text: string) => text.replace(/\n+$/, '').split('\n');
    captures.set(w, { plain: lines(capture(false)), joined: lines(capture(true)) });
  }
}, 240_000);

afterAll(async () => {
  await tmux?.stop();
  for (const env of envs.values()) await runCli(['sandbox', 'down', '--all'], env).catch(() => undefined);
  raw?.disconnect();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe.each(WIDTHS)('at %i columns', (width) => {
  it('the terminal wraps no line: every help, summary and table line was laid out to fit, between words', () => {
    const { plain, joined } = captures.get(width)!;
    const wrapped = joined.filter((l) => displayWidth(l.trimEnd()) > width);
    expect(wrapped, `lines the terminal had to break at ${width} columns`).toEqual([]);
    expect(joined.length).toBe(plain.length);
  });

  it('it really ran everything: help of every command, the tables, doctor, race and scenario summaries', () => {
    const text = captures.get(width)!.plain.join('\n');
    for (const seen of ['Usage: redlock-cli sandbox up', 'Usage: redlock-cli target add', 'KEY', '注文ロック', 'see: redlock-cli scenario show setnx-expire-crash', 'NODE', 'verdict', 'fair-lock-dead-waiter']) {
      expect(text).toContain(seen);
    }
    // The CJK key's row lines up with the ascii rows of the ls table (its kind column is followed
    // by two spaces; inspect's "Redisson lock (reentrant or fair ...)" header is not a table row).
    const rows = captures.get(width)!.plain.filter((l) => /\breentrant {2}/.test(l) && /^(KEY|注文|orders|pay|stuck)/.test(l));
    const kindAt = rows.map((l) => displayWidth(l.slice(0, l.search(/\breentrant {2}/))));
    expect(new Set(kindAt).size, rows.join('\n')).toBe(1);
  });
});
