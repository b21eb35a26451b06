#!/usr/bin/env node
// The load rehearsal of the whole suite: runs `npm test` (build, type check, every test file) N
// times in a row with CPU hogs beside it (one busy-looping process per core by default, --hogs 2
// for two), each pass bounded in time, the hogs stopped by pid at the end. Prints one line per
// pass (passed / failed tests, run time, load average) and a PASS / FAIL summary; exits 1 when any
// pass failed or ran out of time. The suite must pass here as on an idle machine: a test that
// needs a quiet machine is broken.
//
//   node scripts/suite-under-load.mjs                 # 3 passes, one hog per core
//   node scripts/suite-under-load.mjs --hogs 2 -n 1   # 1 pass, two hogs per core
//   node scripts/suite-under-load.mjs -n 5 -- test/scenario/runner-redlock.test.ts   # only these files (vitest run)
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadText, startHogs } from './cpu-hogs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: node scripts/suite-under-load.mjs [-n passes] [--hogs per-core] [--limit minutes-per-pass] [-- test files]';

function parseArgs(argv) {
  const opts = { passes: 3, hogs: 1, limitMin: 30, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      opts.files = argv.slice(i + 1);
      break;
    }
    const value = () => Number(argv[++i]);
    if (arg === '-n' || arg === '--passes') opts.passes = value();
    else if (arg === '--hogs') opts.hogs = value();
    else if (arg === '--limit') opts.limitMin = value();
    else if (arg === '-h' || arg === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown option ${arg}\n${USAGE}`);
  }
  if (!Number.isInteger(opts.passes) || opts.passes < 1 || opts.passes > 20) fail(`-n takes 1 to 20 passes\n${USAGE}`);
  if (!(opts.hogs >= 0 && opts.hogs <= 8)) fail(`--hogs takes 0 to 8 hogs per core\n${USAGE}`);
  if (!(opts.limitMin > 0 && opts.limitMin <= 120)) fail(`--limit takes 1 to 120 minutes per pass\n${USAGE}`);
  return opts;
}

function fail(message) {
  console.error(message);
  process.exit(2);
}

const minutes = (ms) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

/** One `npm test` (or `vitest run <files>`), in its own process group so a pass out of time is stopped whole. */
function runSuite(limitMs, files) {
  const started = performance.now();
  rmSync(join(root, 'test-results', 'vitest.json'), { force: true });
  const [command, args] = files.length > 0 ? ['npx', ['vitest', 'run', ...files]] : ['npm', ['test']];
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }, limitMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, timedOut, ms: performance.now() - started, counts: readCounts() });
    });
  });
}

function readCounts() {
  try {
    const report = JSON.parse(readFileSync(join(root, 'test-results', 'vitest.json'), 'utf8'));
    return { passed: report.numPassedTests, failed: report.numFailedTests, failedNames: failedTests(report) };
  } catch {
    return undefined;
  }
}

function failedTests(report) {
  return (report.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? []).filter((a) => a.status === 'failed').map((a) => `${file.name.replace(root, '')}: ${a.fullName}`),
  );
}

const opts = parseArgs(process.argv.slice(2));
const limitMs = opts.limitMin * 60_000;
const loadBefore = loadText();
const hogs = startHogs(opts.hogs, opts.passes * limitMs + 60_000);
const what = opts.files.length > 0 ? `vitest run ${opts.files.join(' ')}` : 'npm test';
console.log(`${what} under load: ${opts.passes} pass(es), ${hogs.count} CPU hogs (${opts.hogs} per core, pids ${hogs.pids.join(' ')}), load average before ${loadBefore}`);
const results = [];
const started = performance.now();
try {
  for (let pass = 1; pass <= opts.passes; pass++) {
    const r = await runSuite(limitMs, opts.files);
    const ok = r.code === 0 && !r.timedOut;
    results.push({ ...r, ok });
    const counts = r.counts ? `${r.counts.passed} passed, ${r.counts.failed} failed` : 'no test report (build or type check failed)';
    console.log(`pass ${pass}/${opts.passes}: ${ok ? 'PASS' : 'FAIL'} ${counts} in ${minutes(r.ms)}${r.timedOut ? ` (stopped after the ${opts.limitMin} min limit)` : ''}, load average ${loadText()}`);
    for (const name of r.counts?.failedNames ?? []) console.log(`  failed: ${name}`);
  }
} finally {
  hogs.stop();
}
const failed = results.filter((r) => !r.ok).length;
console.log(
  `\n${failed === 0 ? 'PASS' : 'FAIL'}: ${results.length - failed} of ${results.length} pass(es) green with ${opts.hogs} hog(s) per core; ` +
    `total ${minutes(performance.now() - started)}; hogs stopped (pids ${hogs.pids.join(' ')}); load average after ${loadText()}`,
);
process.exitCode = failed === 0 ? 0 : 1;
