#!/usr/bin/env node
// The server matrix (issue 27). Beside the whole suite on Debian 12's Redis 7.0 (`npm test`), the
// tests of what talks to the server run again on each extra server scripts/extra-servers.sh
// builds (Redis 8.0, Valkey 8.1): the lock engine (every kind: acquire, re-entry, renew, release,
// force-unlock, waking a waiter), inspect / ls / doctor, and trace from MONITOR and from keyspace
// notifications. REDLOCK_TEST_SERVER makes every server those tests start that binary
// (test/helpers/test-server.ts). Each server also replays every family of the scenario catalogue,
// once: Redis 8.0 through the catalogue's test files (one per sandbox the families share), Valkey
// 8.1 through the built CLI, `scenario run --all --redis-server`, as a team would replay it on its
// own server: every verdict as expected, an inconclusive one (the machine too busy for a race's
// timing) counted apart, never a wrong one.
//
// Each vitest run writes test-results/matrix-<server>.json and the catalogue run
// test-results/matrix-<server>-catalogue.json (the same counts), which scripts/test-summary.mjs adds up.
// Needs `npm run build` first (tests and the catalogue run the built CLI). Exits 1 on any failure.
//   node scripts/server-matrix.mjs              # Redis 8.0, then Valkey 8.1
//   node scripts/server-matrix.mjs valkey       # one of them
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** How each server replays the catalogue: its test files, or the CLI's `scenario run --all`. */
const CATALOGUE_BY = { redis: 'tests', valkey: 'cli' };
const SERVERS = Object.keys(CATALOGUE_BY);

const MATRIX_FILES = [
  // the engine, every lock kind; force-unlock and waking a waiter through the commands
  'test/locks',
  'test/commands/lock-commands.test.ts',
  // inspect, ls, doctor
  'test/inspect/locks.test.ts',
  'test/commands/inspect.test.ts',
  'test/commands/ls.test.ts',
  'test/commands/doctor.test.ts',
  // trace: the MONITOR source, the keyspace source, the command
  'test/trace/monitor-feed.test.ts',
  'test/trace/keyspace.test.ts',
  'test/commands/trace.test.ts',
];

/** The catalogue's test files: every shipped scenario, grouped by the sandbox its family needs. */
const CATALOGUE_FILES = [
  'test/scenario/runner-shipped.test.ts', // token locks on one node
  'test/scenario/catalogue-single.test.ts', // Redisson locks: watchdog, reentrancy, refresh
  'test/scenario/catalogue-redlock.test.ts', // Redlock on five primaries
  'test/scenario/catalogue-replicas-queues.test.ts', // Sentinel failover, partitions, fair and read-write queues
];

function serverPath(name) {
  return execFileSync(join(root, 'scripts', 'extra-servers.sh'), ['path', name], { encoding: 'utf8' }).trim();
}

function seconds(since) {
  return `${((performance.now() - since) / 1000).toFixed(0)} s`;
}

/** The matrix files on one server; true when every test passed. */
function runTests(name, binary, files) {
  const started = performance.now();
  console.log(`\nserver-matrix: the matrix tests on ${name} (${binary})`);
  const run = spawnSync('npx', ['vitest', 'run', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, REDLOCK_TEST_SERVER: binary, REDLOCK_TEST_REPORT: `test-results/matrix-${name}.json` },
  });
  console.log(`server-matrix: ${name}: exit ${run.status} in ${seconds(started)}`);
  return run.status === 0;
}

/** `scenario run --all --redis-server` on one server; true when no verdict was wrong and every scenario ran. */
function runCatalogue(name, binary) {
  const started = performance.now();
  console.log(`\nserver-matrix: scenario run --all --redis-server ${binary}`);
  const state = mkdtempSync(join(tmpdir(), 'redlock-matrix-state-'));
  try {
    const run = spawnSync(process.execPath, [join(root, 'bin', 'redlock-cli.js'), 'scenario', 'run', '--all', '--redis-server', binary, '--json'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, XDG_STATE_HOME: state },
      maxBuffer: 256 * 1024 * 1024,
    });
    let results = [];
    try {
      results = JSON.parse(run.stdout);
    } catch {
      console.log(`server-matrix: the catalogue printed no JSON (exit ${run.status})`);
    }
    const outcomes = results.flatMap((s) => (s.error ? ['error'] : s.variants.map((v) => v.outcome)));
    const count = (o) => outcomes.filter((x) => x === o).length;
    const wrong = outcomes.length - count('as-expected') - count('inconclusive');
    console.log(`server-matrix: catalogue on ${name}: ${results.length} scenarios, ${count('as-expected')} variants as expected, ${count('inconclusive')} inconclusive, ${wrong} wrong or failed (exit ${run.status}, ${seconds(started)})`);
    const passed = results.filter((s) => !s.error && s.variants.every((v) => v.outcome === 'as-expected' || v.outcome === 'inconclusive')).length;
    const failed = Math.max(results.length - passed, results.length === 0 ? 1 : 0);
    writeFileSync(join(root, 'test-results', `matrix-${name}-catalogue.json`), JSON.stringify({ numPassedTests: passed, numFailedTests: failed, numPendingTests: 0 }));
    return failed === 0 && (run.status === 0 || run.status === 8);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

const chosen = process.argv.length > 2 ? process.argv.slice(2) : SERVERS;
for (const name of chosen) {
  if (!SERVERS.includes(name)) {
    console.error(`server-matrix: unknown server "${name}": one of ${SERVERS.join(', ')}`);
    process.exit(2);
  }
}
mkdirSync(join(root, 'test-results'), { recursive: true });
const started = performance.now();
let ok = true;
for (const name of chosen) {
  const binary = serverPath(name);
  const byCli = CATALOGUE_BY[name] === 'cli';
  ok = runTests(name, binary, byCli ? MATRIX_FILES : [...MATRIX_FILES, ...CATALOGUE_FILES]) && ok;
  if (byCli) ok = runCatalogue(name, binary) && ok;
}
console.log(`server-matrix: ${ok ? 'PASS' : 'FAIL'} in ${seconds(started)}`);
process.exit(ok ? 0 : 1);
