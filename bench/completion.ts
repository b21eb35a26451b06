// A Tab as bash runs it: the script `redlock-cli completion bash` prints, sourced, and its
// function called the way readline calls it, timed inside one bash (EPOCHREALTIME around the
// call), beside `node -e 0` timed the same way (the floor any Tab that starts node pays), 15
// rounds, medians. Five Tabs: a command name and an option (answered by the script's awk walk,
// no node), a lock key with the cache warm (just refreshed: awk reads the file the index names,
// no node), the same with the cache stale (awk answers and starts the refresh in the background
// through sh, not waited for), and a lock key with no cache (node: the Tab starts the refresh and
// waits for it up to its budget, 100 ms, then answers without it). The keys
// are those of a local redis-server holding 50 locks. `--hogs` adds one busy-looping node per
// core beside it. Figures go in docs/performance.md ("Shell completion").
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis } from '../test/helpers/redis-server.js';
import { median } from './startup.js';
// @ts-expect-error: a plain .mjs script without types
import { startHogs } from '../scripts/cpu-hogs.mjs';

const BIN = new URL('../bin/redlock-cli.js', import.meta.url).pathname;
const RUNS = 15;
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(', ');

// One bash, every Tab and every floor timed in it; a cold Tab first waits until no refresh runs
// (so one round's refresh never answers the next) and removes the cache files.
const ROUNDS = `
source "$1"
port=$2 cache=$3 runs=$4
now() { local t=\${EPOCHREALTIME/./}; echo "\${t#0}"; }
tab() {
  COMP_WORDS=(redlock-cli "$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
  local t0; t0=$(now)
  _redlock_cli_complete
  echo "$(( ($(now) - t0) )) \${#COMPREPLY[@]}"
}
floor() { local t0; t0=$(now); node -e 0; echo "$(( $(now) - t0 )) 0"; }
settle() {
  for _ in $(seq 400); do compgen -G "$cache/*.refreshing" >/dev/null || break; sleep 0.05; done
}
for ((i = 0; i < runs; i++)); do
  echo "command $(tab ins)";                      echo "floor $(floor)"
  echo "option $(tab inspect --ki)";              echo "floor $(floor)"
  settle
  echo "warm $(tab inspect -p "$port" orders:1)"; echo "floor $(floor)"
  settle; sed -i 's/^\\(scan\t.*\t\\)[0-9]*$/\\10/' "$cache"/keys-*.txt
  echo "stale $(tab inspect -p "$port" orders:1)"; echo "floor $(floor)"
  settle; rm -f "$cache"/keys-*.txt
  echo "cold $(tab inspect -p "$port" orders:1)"; echo "floor $(floor)"
done
`;

const hogs = process.argv.includes('--hogs') ? startHogs(1, 10 * 60_000) : undefined;
const server = await startRedis();
const home = mkdtempSync(join(tmpdir(), 'redlock-bench-completion-'));
try {
  const bin = join(home, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'redlock-cli'));
  const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config') };
  for (let i = 0; i < 50; i++) execFileSync('node', [BIN, 'acquire', `orders:${i}`, '--lease', '10m', '-p', String(server.port)], { stdio: 'ignore', env });
  const script = join(home, 'redlock-cli.bash');
  writeFileSync(script, execFileSync('node', [BIN, 'completion', 'bash'], { env }));
  // The first warm Tab needs a cache: one Tab with room to fill it.
  const cache = join(home, 'state', 'redlock-cli', 'completion');
  const warmUp = `source "$1"; COMP_WORDS=(redlock-cli inspect -p $2 orders:1); COMP_CWORD=4; _redlock_cli_complete`;
  execFileSync('bash', ['--norc', '-c', warmUp, 'bash', script, String(server.port)], { env: { ...env, REDLOCK_CLI_COMPLETE_MS: '10000' } });
  console.log(`node ${process.version}, bash ${execFileSync('bash', ['-c', 'echo $BASH_VERSION']).toString().trim()}; load average (1, 5, 15 min) ${load()}${hogs ? ' (one CPU hog per core)' : ''}`);
  const out = execFileSync('bash', ['--norc', '-c', ROUNDS, 'bash', script, String(server.port), cache, String(RUNS)], { env, encoding: 'utf8' });
  const rows = out.trim().split('\n').map((l) => l.split(' '));
  const timesOf = (name: string) => rows.filter((r) => r[0] === name).map((r) => Number(r[1]) / 1000);
  const offered = (name: string) => [...new Set(rows.filter((r) => r[0] === name).map((r) => r[2]))].join('/');
  const floors = timesOf('floor');
  const ms = (x: number): string => `${x.toFixed(0)} ms`;
  console.log('| a Tab after | wall (median) | slowest | candidates | `node -e 0` wall (median of all rounds) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, what] of [
    ['command', '`ins` (a command: awk, no node)'],
    ['option', '`inspect --ki` (an option: awk, no node)'],
    ['warm', '`inspect -p <port> orders:1`, cache warm (50 locks: awk, no node)'],
    ['stale', '`inspect -p <port> orders:1`, cache stale (awk; refresh in the background)'],
    ['cold', '`inspect -p <port> orders:1`, no cache yet'],
  ] as const) {
    const t = timesOf(name);
    console.log(`| ${what} | ${ms(median(t))} | ${ms(Math.max(...t))} | ${offered(name)} | ${ms(median(floors))} |`);
  }
  console.log(`load average after ${load()}`);
} finally {
  await server.stop();
  hogs?.stop();
  rmSync(home, { recursive: true, force: true });
}
