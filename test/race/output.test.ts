import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { env } from './helpers.js';

// The built CLI as a user runs it, under an import hook that refuses ink and react: the summary
// and --json paths must never load the live view.
let server: RedisServer;
let hook: string;
beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  hook = join(mkdtempSync(join(tmpdir(), 'redlock-no-ink-')), 'no-ink.mjs');
  const resolve = `export async function resolve(s, c, n) { if (/^(ink|react)(\\/|$)/.test(s)) throw new Error('imported ' + s); return n(s, c); }`;
  writeFileSync(hook, `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolve)}));\n`);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', ['--import', pathToFileURL(hook).href, BIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('race output', () => {
  it('a safe race prints the summary table and exits 0, without ink', async () => {
    const r = await cli('race', 'orders', 'invoices', '--url', server.url, '--kind', 'fenced', '--clients', '4', '--duration', '1500ms', '--lease', '2s', '--hold', '2ms', '--yes');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Piped, the summary wraps at 80 columns between words, continuation lines indented under the figures.
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    const stdout = r.stdout.replace(/\n {4,}(?=\S)/g, ' ');
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`race orders, invoices against 127.0.0.1:${server.port}`);
    expect(lines[1]).toBe('  fenced lock on orders, invoices · 4 clients · lease 2000 ms renewed · hold 2 ms fixed · wait 1000 ms · release safe');
    expect(r.stdout).toMatch(/^ {2}acquisitions +\d+ \(\d+\.\d\/s\) +[▁▂▃▄▅▆▇█]+$/m);
    expect(stdout).toMatch(/^ {2}wait +p50 [\d.]+ ms · p95 .+ · p99 .+ · max .+$/m);
    expect(stdout).toMatch(/^ {2}server clock +wait p50 [\d.]+ ms · p99 .+ · hold p50 .+ · p99 .+$/m);
    expect(stdout).toMatch(/^ {2}fairness +[01]\.\d\d \(Jain's index, 1 = even\) · busiest c\d [\d.]+% · quietest c\d [\d.]+%$/m);
    for (const key of ['orders', 'invoices']) {
      const [, counter, increments] = new RegExp(`counter ${key} +(\\d+) after (\\d+) increments \\(none lost\\)`).exec(stdout) ?? [];
      expect(Number(counter)).toBeGreaterThan(0);
      expect(counter).toBe(increments);
    }
    expect(stdout).toMatch(/^ {2}harness +race process \d+% of a core, timers late p99 .+; Redis \d+% of a core(; machine [\d.]+ of \d+ cores busy)?: .+$/m);
    expect(stdout).toMatch(/^ {2}verdict +SAFE: no violation found/m);
  });

  it('--json: every figure, the harness, and each key with its history, without ink', async () => {
    const r = await cli('race', 'orders', '--url', server.url, '--kind', 'token', '--clients', '3', '--duration', '1s', '--lease', '2s', '--hold', '2ms', '--procs', '1', '--json', '--yes');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown> & { keys: { history: { clients: string[]; events: { kind: string }[] }; counter: number; acquisitions: number }[] };
    expect(Object.keys(out)).toEqual(
      expect.arrayContaining(['plan', 'target', 'elapsedMs', 'safe', 'acquisitions', 'ratePerSec', 'series', 'waits', 'serverTimed', 'timeouts', 'fairness', 'shares', 'lostLocks', 'faults', 'harness', 'violations', 'keys']),
    );
    expect(out.safe).toBe(true);
    // Worker clients' server-timed figures, one wait per acquisition.
    expect(out.serverTimed).toMatchObject({ waits: { count: out.acquisitions }, holds: { count: expect.any(Number) } });
    expect(out.harness).toMatchObject({ workers: 1, keptUp: expect.any(Boolean) });
    const [k] = out.keys;
    expect(k!.counter).toBe(k!.acquisitions);
    expect(k!.history.clients).toEqual(['c1', 'c2', 'c3']);
    expect(k!.history.events.at(-1)!.kind).toBe('end');
  });
});
