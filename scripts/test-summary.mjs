// Prints the test reports as one plain closing line: "tests: N passed, N failed, N skipped": the
// whole suite's (test-results/vitest.json) plus the server matrix's (test-results/matrix-*.json,
// scripts/server-matrix.mjs), each also on a line of its own before it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const dir = new URL('../test-results/', import.meta.url);
const names = existsSync(dir) ? readdirSync(dir).filter((n) => n === 'vitest.json' || /^matrix-.+\.json$/.test(n)).sort() : [];
const total = { passed: 0, failed: 0, skipped: 0 };
if (!names.includes('vitest.json')) {
  console.log('  vitest.json: no report (the build or type check failed first)');
  total.failed++;
}
for (const name of names) {
  try {
    const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
    const counts = { passed: report.numPassedTests ?? 0, failed: report.numFailedTests ?? 0, skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0) };
    for (const key of Object.keys(total)) total[key] += counts[key];
    console.log(`  ${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    for (const line of failedTests(report)) console.log(`    failed: ${line}`);
  } catch {
    console.log(`  ${name}: unreadable`);
    total.failed++;
  }
}
// Names each failed test with its file and the first line of why, so that a CI log that keeps only
// its tail still says which test to look at.
function failedTests(report) {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const path = String(file.name ?? '').replace(/^.*?\/test\//, 'test/');
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      const why = String(test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 160);
      lines.push(`${path} > ${test.fullName ?? test.title}: ${why}`);
    }
    if ((file.assertionResults ?? []).length === 0 && file.status === 'failed') lines.push(`${path}: ${String(file.message ?? '').split('\n')[0].slice(0, 160)}`);
  }
  return lines;
}

console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
