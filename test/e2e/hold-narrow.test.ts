// `hold` on a real 45-column terminal (a private tmux): the live view repaints in place. A line
// wider than the terminal is wrapped by the terminal, not by ink, so ink's repaint erases one row
// too few and every tick leaves a copy of the header behind: the screen floods. Here the header
// is on the screen (scrollback included) exactly once after seconds of repaints.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateTmux } from '../../scripts/screens/tmux.mjs';
import { ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

const BIN = resolve('bin/redlock-cli.js');
const socket = `redlock-hold-narrow-${process.pid}`;
const HEADER = 'orders  reentrant';
let server: RedisServer;
let tmux: ReturnType<typeof privateTmux> | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const raw_tmux = (...args: string[]): string => execFileSync('tmux', ['-u', '-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
/** The pane's whole history and screen, as the user would scroll through it. */
const everything = (): string => raw_tmux('capture-pane', '-p', '-S', '-', '-t', 'hold');
const headers = (): number => everything().split('\n').filter((l) => l.includes(HEADER)).length;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  // No CI in the pane's environment: under CI ink prints only its last frame, and nothing repaints.
  const { HOME, PATH, XDG_STATE_HOME } = tempStateEnv();
  tmux = privateTmux(socket, { HOME, PATH, XDG_STATE_HOME, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' });
}, 60_000);

afterAll(async () => {
  await tmux?.stop();
  await server?.stop();
});

describe('hold at 45 columns of a real terminal', () => {
  it('repaints in place: one header after seconds of repaints', async () => {
    const pane = tmux!.session('hold', `node ${BIN} hold orders --watchdog 3s --url ${server.url}`, { width: 45, height: 20 });
    await pane.until((s) => s.includes('● held') && s.includes('left of'), 'the hold view');
    // A few seconds of repaints (the countdown moves every tick, a renewal every second).
    await sleep(2500);
    pane.track();
    expect(headers(), everything()).toBe(1);
    const lease = pane.screen().split('\n').find((l) => l.startsWith('lease'));
    expect(lease).toMatch(/^lease +█*░* +\S+ \S+ left of 3\.0 s/);
  }, 60_000);
});
