import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/helpers/setup.ts'],
    // Fails the run when any process a test started outlives the suite; runs every server a test
    // starts on $REDLOCK_TEST_SERVER when set (the server matrix; see the files).
    globalSetup: ['test/helpers/global-leaks.ts', 'test/helpers/test-server.ts'],
    pool: 'forks',
    // Test files mostly wait on real redis-servers, not the CPU: run more files than cores, but
    // not so many that timers of the time-dependent tests run late (4 on 2 cores made them flaky).
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The JSON report lets .ci/run print one plain "N passed, N failed" line at the end; the server
    // matrix (scripts/server-matrix.mjs) names a report of its own per server.
    reporters: ['default', ['json', { outputFile: process.env.REDLOCK_TEST_REPORT ?? 'test-results/vitest.json' }]],
  },
});
