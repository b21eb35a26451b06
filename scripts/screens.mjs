#!/usr/bin/env node
// Captures the README's pictures of the real screens from real runs: the built CLI (dist/, build
// it first) in a private tmux at a fixed size, against redis-servers and sandboxes it starts on
// free loopback ports, with real lock state set up by the CLI and by node-redlock. No network.
//
//   npm run build && npm run screens                 # write docs/screens/*.txt and the README blocks
//   node scripts/screens.mjs --check [--out DIR]     # capture to a temp dir, compare with the README
//   node scripts/screens.mjs --only hold,repl        # some screens only
//
// --check exits 1 when a screen differs from its README block once times, ids and ports are
// normalised (scripts/screens/readme.mjs), so a change of layout, labels or lanes is caught.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect as createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normaliseScreen, readmeBlock, replaceBlock, tidyCapture } from './screens/readme.mjs';
import { SHOTS } from './screens/shots.mjs';
import { alive, hasTmux, privateTmux } from './screens/tmux.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'bin', 'redlock-cli.js');
const README = join(root, 'README.md');
const WIDTH = 100;
const HEIGHT = 30;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const opts = { check: false, out: undefined, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--check') opts.check = true;
    else if (arg === '--out') opts.out = argv[++i];
    else if (arg === '--only') opts.only = (argv[++i] ?? '').split(',');
    else fail(`unknown argument ${arg}\nusage: node scripts/screens.mjs [--check] [--out DIR] [--only name,...]`);
  }
  const unknown = (opts.only ?? []).filter((n) => !SHOTS.some((s) => s.name === n));
  if (unknown.length > 0) fail(`no screen named ${unknown.join(', ')} (screens: ${SHOTS.map((s) => s.name).join(', ')})`);
  return opts;
}

function fail(message) {
  console.error(message);
  process.exit(2);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => (port === 6379 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

/** Everything one run starts, so that all of it is stopped by pid however the run ends. */
function createRun(work) {
  const children = [];
  const stops = [];
  const socket = `redlock-screens-${process.pid}`;
  const tmux = privateTmux(socket, baseEnv(work, 'tmux'));
  let cleaned = false;

  function baseEnv(dir, name) {
    const own = join(dir, name);
    for (const sub of ['state', 'config', 'home']) mkdirSync(join(own, sub), { recursive: true });
    return {
      PATH: `${join(work, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: join(own, 'home'),
      XDG_STATE_HOME: join(own, 'state'),
      XDG_CONFIG_HOME: join(own, 'config'),
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TERM: 'xterm-256color',
      FORCE_COLOR: '0', // capture-pane drops colour anyway; this keeps the text identical to NO_COLOR
    };
  }

  function trackChild(child, what) {
    children.push(child);
    child.once('error', (e) => console.error(`${what}: ${e.message}`));
    return child;
  }

  async function stop() {
    if (cleaned) return;
    cleaned = true;
    for (const fn of stops.reverse()) {
      try {
        await fn();
      } catch {
        // best effort: the processes below are what must not be left behind
      }
    }
    await tmux.stop();
    for (const child of children) if (child.pid !== undefined && child.exitCode === null && child.signalCode === null && alive(child.pid)) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }

  /**
   * The context one screen's shoot() gets: its own state dir, servers and panes. Its end() stops
   * all of them, so no screen is taken beside the live views, servers and waiters of the last.
   */
  function context(shot) {
    const env = baseEnv(work, shot);
    const cliEnv = (extra) => ({ ...env, ...extra });
    const own = { children: [], stops: [], sessions: [] };
    const track = (child, what) => {
      own.children.push(child);
      return trackChild(child, what);
    };
    let ended = false;
    const end = async () => {
      if (ended) return;
      ended = true;
      for (const fn of own.stops.reverse()) await Promise.resolve().then(fn).catch(() => undefined);
      for (const session of own.sessions) await session.kill();
      for (const child of own.children) if (child.pid !== undefined && child.exitCode === null && child.signalCode === null && alive(child.pid)) child.kill('SIGKILL');
    };
    stops.push(end); // an interrupted run ends the screen being taken too
    return {
      end,
      async redis() {
        const port = await freePort();
        const dir = mkdtempSync(join(work, `redis-${port}-`));
        const child = track(
          spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'], { stdio: 'ignore' }),
          'redis-server',
        );
        const url = `redis://127.0.0.1:${port}`;
        await until(() => ping(port), `redis-server on port ${port}`);
        if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited at start`);
        return { port, url };
      },
      /** Runs the built CLI once to completion; throws with its stderr unless it exits 0. */
      cli(args, extra = {}) {
        return new Promise((resolve, reject) => {
          const child = track(spawn(process.execPath, [BIN, ...args], { env: cliEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] }), args[0]);
          let err = '';
          child.stderr.on('data', (d) => (err += d));
          child.stdout.resume();
          child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redlock-cli ${args.join(' ')} exited ${code}: ${err}`))));
        });
      },
      /** Starts the built CLI in the background (a waiter, say); stopped at the end. Returns the child (to pause it). */
      background(args, extra = {}) {
        return track(spawn(process.execPath, [BIN, ...args], { env: cliEnv(extra), stdio: 'ignore' }), args[0]);
      },
      onStop: (fn) => void own.stops.push(fn),
      log: (message) => console.error(message),
      until,
      /** `redlock-cli <args>` in a pane, under the line a user would have typed to start it. */
      pane(name, args, extra, { height = HEIGHT } = {}) {
        if (!args.every((a) => /^[\w.:%/-]+$/.test(a))) throw new Error(`arguments that need quoting: ${args.join(' ')}`);
        const line = `redlock-cli ${args.join(' ')}`;
        const exitFile = join(work, shot, `${name}.exit`);
        const command = `printf '%s\\n' '$ ${line}'; ${line}; echo $? > ${exitFile}; exec sleep 600`;
        const session = tmux.session(name, command, { width: WIDTH, height, env: { ...env, ...extra } });
        own.sessions.push(session);
        const readExit = () => (existsSync(exitFile) ? Number(readFileSync(exitFile, 'utf8').trim()) : undefined);
        /**
         * Waits for the command to end; its exit code. It watches the exit file only: capturing the
         * pane meanwhile (a tmux process 20 times a second) would take CPU from the run on screen.
         */
        const exitCode = async (ms = 20_000) => {
          await until(() => {
            session.track();
            return readExit() !== undefined;
          }, `${line} to exit`, ms);
          return readExit();
        };
        return {
          ...session,
          exitCode,
          /** Waits for the command to end and checks its exit code. */
          async exited(code, ms = 20_000) {
            const got = await exitCode(ms);
            if (got !== code) throw new Error(`${line} exited ${got}, expected ${code}; the screen was:\n${session.screen()}`);
          },
          /** Ctrl-C for the command itself (the pane's shell would die of a SIGINT to its group). */
          interrupt() {
            session.track();
            const [pid] = session.children();
            if (pid === undefined) throw new Error(`${line} is not running`);
            process.kill(pid, 'SIGINT');
          },
        };
      },
    };
  }

  return { context, stop, socket };
}

/** Polls an async check until it holds; throws naming `what` after `ms`. */
async function until(check, what, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** One raw RESP PING; true on PONG. */
function ping(port) {
  return new Promise((resolve) => {
    const socket = createConnection(port);
    socket.setTimeout(500, () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => (socket.destroy(), resolve(d.toString().includes('PONG'))));
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(join(root, 'dist', 'main.js'))) fail('no build: run `npm run build` first (this script runs dist/, it builds nothing)');
  if (!hasTmux()) fail('tmux is not installed: the screens are captured from a real terminal (apt-get install tmux)');
  const shots = SHOTS.filter((s) => opts.only === undefined || opts.only.includes(s.name));
  const out = opts.check ? (opts.out ?? mkdtempSync(join(tmpdir(), 'redlock-screens-out-'))) : join(root, 'docs', 'screens');
  mkdirSync(out, { recursive: true });

  const work = mkdtempSync(join(tmpdir(), 'redlock-screens-'));
  mkdirSync(join(work, 'bin'));
  symlinkSync(BIN, join(work, 'bin', 'redlock-cli')); // so a pane runs exactly the line it shows
  const run = createRun(work);
  let stopping = false;
  const interrupted = async () => {
    stopping = true;
    await run.stop();
    if (opts.check && opts.out === undefined) rmSync(out, { recursive: true, force: true });
    console.error('interrupted: everything it started is stopped');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const captured = new Map();
  let failed = 0;
  try {
    for (const shot of shots) {
      const started = Date.now();
      try {
        const ctx = run.context(shot.name);
        const text = tidyCapture(await shot.shoot(ctx).finally(() => ctx.end()));
        if (stopping) return;
        writeFileSync(join(out, `${shot.name}.txt`), text);
        captured.set(shot.name, text);
        console.error(`${shot.name}: captured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } catch (e) {
        if (stopping) return; // the signal handler is tearing down: its failures are not the screen's
        failed++;
        console.error(`${shot.name}: FAILED: ${e instanceof Error ? e.message : e}`);
      }
    }
  } finally {
    await run.stop();
  }

  if (opts.check) {
    const readme = readFileSync(README, 'utf8');
    for (const [name, text] of captured) {
      const block = readmeBlock(readme, name);
      if (block === undefined) {
        failed++;
        console.error(`${name}: README.md has no <!-- screen:${name} --> block`);
      } else if (normaliseScreen(block) !== normaliseScreen(text)) {
        failed++;
        console.error(`${name}: differs from the README (npm run screens updates it); fresh capture in ${join(out, `${name}.txt`)}`);
      } else {
        console.error(`${name}: matches the README`);
      }
    }
    // Nothing to look at when all matched and the caller did not ask for the captures.
    if (failed === 0 && opts.out === undefined) rmSync(out, { recursive: true, force: true });
    // For the test: where the captures are, and what must be gone now (the work dir, the tmux socket).
    console.log(JSON.stringify({ out, work, socket: run.socket }));
  } else if (captured.size > 0) {
    // Read right before writing: other edits to the README may have landed during the run.
    let readme = readFileSync(README, 'utf8');
    for (const [name, text] of captured) readme = replaceBlock(readme, name, text);
    writeFileSync(README, readme);
    console.error(`wrote ${[...captured.keys()].map((n) => `docs/screens/${n}.txt`).join(', ')} and their README blocks`);
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
