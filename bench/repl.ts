// REPL start-up as a user sees it: the built launcher in a pseudo-terminal (`script`), timed from
// spawn to the first prompt on screen, next to the same REPL started through commander (the whole
// CLI loaded first, as before the quick start), `--version` in the same pseudo-terminal (node and
// the CLI alone), a bare node importing ink and react from node_modules, one importing the bundle
// of them that the build makes (dist/ui/vendor.js, what the REPL loads), and the harness itself
// (script, sh and stty printing a word: what a user's own terminal does not pay). Alternating
// rounds, median of BENCH_RUNS; a redis-server on a free port is the target and is always stopped.
// The quick start writes its prompt before ink has loaded and ink then draws it again in the same
// place: the first time the prompt is on screen, and the second (ink's screen, reading the keys
// typed meanwhile) are both reported. The load average is printed before and after: the machine
// is shared, and the figures move with it.
//   npx tsx bench/repl.ts      (BENCH_RUNS=15)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../test/helpers/build.js';
import { startRedis } from '../test/helpers/redis-server.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BIN = 'bin/redlock-cli.js';
const TIMEOUT_MS = 10_000;
// History and remembered owners go to a throw-away state dir, never the user's.
const state = mkdtempSync(join(tmpdir(), 'redlock-bench-repl-'));

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Seen {
  /** ms until `marker` first appeared. */
  readonly first: number;
  /** ms until it appeared a second time, if it did before the process was asked to leave. */
  readonly again?: number | undefined;
}

/**
 * Runs `command` in a pseudo-terminal and resolves with the ms until `marker` appears in its
 * output (and until it appears again); then types `leave` (if any) and waits for it to exit.
 */
function inPty(command: string, marker: string, leave?: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // A real terminal's size: at 0 rows (script's default without one) ink would clear the screen on every frame.
    const child = spawn('script', ['-qfec', `stty rows 30 cols 100; ${command}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, XDG_STATE_HOME: state, FORCE_COLOR: '0', COLUMNS: '100', LINES: '30' },
    });
    let out = '';
    let seenAt: number | undefined;
    let againAt: number | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(seenAt === undefined ? `no "${marker}" within ${TIMEOUT_MS} ms; output: ${out}` : `did not exit within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (seenAt !== undefined && againAt === undefined && out.indexOf(marker) !== out.lastIndexOf(marker)) againAt = performance.now() - started;
      if (seenAt === undefined && out.includes(marker)) {
        seenAt = performance.now() - started;
        // Once ink has the terminal in raw mode (just after its first frame), keys reach the prompt.
        if (leave !== undefined) setTimeout(() => child.stdin.write(leave), 300);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (seenAt === undefined) reject(new Error(`exited (${code}) before "${marker}": ${out}`));
      else resolve({ first: seenAt, again: againAt });
    });
  });
}

async function main(): Promise<void> {
  ensureBuilt();
  const server = await startRedis();
  try {
    const prompt = `A@127.0.0.1:${server.port}>`;
    const contenders = {
      repl: () => inPty(`node ${BIN} repl --url ${server.url}`, prompt, 'exit\r'),
      // --pubsub is not one of the quick start's options: this one loads the whole CLI first.
      commander: () => inPty(`node ${BIN} repl --url ${server.url} --pubsub auto`, prompt, 'exit\r'),
      version: () => inPty(`node ${BIN} --version`, '0.'),
      ink: () => inPty(`node -e "await Promise.all([import('ink'), import('react')]); console.log('loaded')" --input-type=module`, 'loaded'),
      bundle: () => inPty(`node -e "await import('./dist/ui/vendor.js'); console.log('loaded')" --input-type=module`, 'loaded'),
      harness: () => inPty('echo harness-ready', 'harness-ready'),
    };
    const times: Record<keyof typeof contenders, number[]> = { repl: [], commander: [], version: [], ink: [], bundle: [], harness: [] };
    const inkScreen: number[] = [];
    const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
    const loadBefore = load();
    await contenders.repl(); // warm the file cache once, uncounted
    for (let i = 0; i < RUNS; i++) {
      for (const [name, run] of Object.entries(contenders) as [keyof typeof contenders, () => Promise<Seen>][]) {
        const seen = await run();
        times[name].push(seen.first);
        if (name === 'repl' && seen.again !== undefined) inkScreen.push(seen.again);
      }
    }
    const fmt = (xs: number[]): string => `${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
    console.log(`REPL start-up in a pseudo-terminal, median of ${RUNS}; load average (1, 5, 15 min) ${loadBefore} before, ${load()} after:`);
    console.log(`  redlock-cli repl to the first prompt: ${fmt(times.repl)}`);
    if (inkScreen.length > 0) console.log(`  the same to ink's screen (keys read): ${fmt(inkScreen)} (${inkScreen.length} of ${RUNS} runs)`);
    console.log(`  the same through commander (main.js): ${fmt(times.commander)}`);
    console.log(`  redlock-cli --version:                ${fmt(times.version)}`);
    console.log(`  node importing ink and react:         ${fmt(times.ink)}`);
    console.log(`  node importing their bundle (dist):   ${fmt(times.bundle)}`);
    console.log(`  the harness alone (script, sh, stty): ${fmt(times.harness)}`);
    console.log(`  first prompt less the harness:        ${(median(times.repl) - median(times.harness)).toFixed(0)} ms`);
  } finally {
    await server.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
