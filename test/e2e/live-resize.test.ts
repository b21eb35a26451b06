// Live views in a real terminal (a private tmux) whose window is resized under them, 120 -> 40 ->
// 80 columns: after each resize the view repaints in place and leaves no row of an older frame on
// the screen or in the scrollback. A row wider than the terminal is wrapped by the terminal, not
// by ink, and ink's repaint then erases one row too few: the old rows stay, and each resize or tick
// adds more. Here the view's one-of-a-kind rows are on the screen (and in the history) once.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateTmux } from '../../scripts/screens/tmux.mjs';
import { ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const BIN = resolve('bin/redlock-cli.js');
const socket = `redlock-live-resize-${process.pid}`;
const KEY = 'orders:2024:eu-west-1:customer-4242:invoice-lock';
let server: RedisServer;
let tmux: ReturnType<typeof privateTmux> | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const raw_tmux = (...args: string[]): string => execFileSync('tmux', ['-u', '-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
/** The pane's whole history and screen, as the user would scroll through it. */
const everything = (name: string): string => raw_tmux('capture-pane', '-p', '-S', '-', '-t', name);
const count = (text: string, needle: RegExp): number => text.split('\n').filter((l) => needle.test(l)).length;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  const env = tempStateEnv();
  expect((await runCli(['acquire', KEY, '--lease', '10m', '--url', server.url], env)).code).toBe(0);
  // A second key of another kind: each key's own rows must appear once.
  expect((await runCli(['acquire', 'fair', '--kind', 'fair', '--lease', '10m', '--url', server.url], env)).code).toBe(0);
  // No CI in the pane's environment: under CI ink prints only its last frame, and nothing repaints.
  const { HOME, PATH, XDG_STATE_HOME } = env;
  tmux = privateTmux(socket, { HOME, PATH, XDG_STATE_HOME, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' });
}, 60_000);

afterAll(async () => {
  await tmux?.stop();
  await server?.stop();
});

describe('a live view resized 120 -> 40 -> 80 columns', () => {
  it('inspect --watch repaints in place after each resize: one status row, one row per key, no debris', async () => {
    const pane = tmux!.session('inspect', `node ${BIN} inspect ${KEY} fair --watch --interval 200ms --url ${server.url}`, { width: 120, height: 30 });
    const status = /every 200 ms/;
    await pane.until((s) => status.test(s) && s.includes('fair'), 'the inspect view');
    for (const width of [40, 80]) {
      raw_tmux('resize-window', '-t', 'inspect', '-x', String(width));
      // Repaints at the new width: the status row fits again, whole (it ends with "q quit").
      await pane.until((s) => s.split('\n').some((l) => status.test(l) && /q quit$/.test(l)), `a repaint at ${width} columns`);
      // A few ticks of repaints at that width.
      await sleep(1000);
      pane.track();
      const screen = pane.screen();
      const history = everything('inspect');
      for (const line of screen.split('\n')) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(count(screen, status), screen).toBe(1);
      expect(count(history, status), history).toBe(1);
      // The lock's kind line of each key, once.
      expect(count(history, /^fair\b/), history).toBe(1);
    }
  }, 90_000);
});
