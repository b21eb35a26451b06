import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { monitorLog } from '../helpers/monitor-log.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace --from` on a long log of locks that expire: every acquisition of `x` by a new token with
// a 1 ms lease leaves a loss that no refusal ever closes. The checker once walked all of them on
// every event (20,000 acquisitions: 26 s, 100,000: far over ten minutes); now each event costs
// O(1) amortised and the whole log, streamed, decoded, checked, charted and printed, takes a few
// seconds of CPU (about 4 s on docs/performance.md's machine).

const ACQUISITIONS = 100_000;
/** CPU seconds of the run: a few on an idle machine; the bound leaves room for a shared, busy one. */
const CPU_BOUND_S = 25;

describe('trace --from at scale', () => {
  it(`reads ${ACQUISITIONS} expiring acquisitions in a bounded time, each one counted`, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'redlock-trace-scale-')), 'monitor.log');
    writeFileSync(file, monitorLog('expiring', ACQUISITIONS));
    const before = process.cpuUsage();
    const { code, stdout, stderr } = await runCli(['trace', '--from', file], tempStateEnv());
    const used = process.cpuUsage(before);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^x +${ACQUISITIONS} +0 +${ACQUISITIONS - 1} `, 'm'));
    expect(stdout).toContain('findings: none: nothing unsafe seen');
    // The chart draws a bounded window of a long file, and says so.
    expect(stdout).toMatch(/^chart: the last 2000 of \d{6} events, from \d\d:\d\d:\d\d\.\d{3}; the summary counts them all$/m);
    expect((used.user + used.system) / 1e6).toBeLessThan(CPU_BOUND_S);
  }, 180_000);
});
