import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace --from` on a long log of locks that expire: every acquisition of `x` by a new token with
// a 1 ms lease leaves a loss that no refusal ever closes. The checker once walked all of them on
// every event (20,000 acquisitions: 26 s, 100,000: far over ten minutes); now each event costs
// O(1) amortised and the whole log, decoded, checked, charted and printed, takes a few seconds.

const ACQUISITIONS = 100_000;
/** CPU seconds of the run: a few on an idle machine; the bound leaves room for a shared, busy one. */
const CPU_BOUND_S = 25;

/** A `redis-cli monitor` log: 50 clients taking `x` in turn, 2 ms apart, each lease 1 ms. */
function expiringLog(n: number): string {
  const base = 1_764_064_800;
  const lines = ['OK'];
  for (let i = 0; i < n; i++) {
    const us = i * 2000;
    lines.push(
      `${base + Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')} [0 127.0.0.1:${5000 + (i % 50)}] "SET" "x" "tok${i}" "NX" "PX" "1"`,
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('trace --from at scale', () => {
  it(`reads ${ACQUISITIONS} expiring acquisitions in a bounded time, each one counted`, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'redlock-trace-scale-')), 'monitor.log');
    writeFileSync(file, expiringLog(ACQUISITIONS));
    const before = process.cpuUsage();
    const { code, stdout, stderr } = await runCli(['trace', '--from', file], tempStateEnv());
    const used = process.cpuUsage(before);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^x +${ACQUISITIONS} +0 +${ACQUISITIONS - 1} `, 'm'));
    expect(stdout).toContain('findings: none: nothing unsafe seen');
    expect((used.user + used.system) / 1e6).toBeLessThan(CPU_BOUND_S);
  }, 180_000);
});
