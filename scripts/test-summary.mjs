// Prints vitest's JSON report as one plain closing line: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

try {
  const report = JSON.parse(readFileSync(new URL('../test-results/vitest.json', import.meta.url), 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
} catch {
  console.log('tests: 0 passed, 1 failed (no vitest report: the build or type check failed first)');
}
