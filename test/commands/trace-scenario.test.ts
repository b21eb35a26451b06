import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace --from FILE --scenario OUT`: the command's own contract, on small recordings: what it
// writes and prints, and its one-line refusals with their exit codes (nothing written).

const dir = mkdtempSync(join(tmpdir(), 'redlock-trace-scenario-'));
const env = tempStateEnv();
const T0 = Date.UTC(2026, 10, 28, 14, 3, 7, 0);

/** A recording (`--record`'s format) of token-lock events, each `[kind, ms after T0, owner, extra]`. */
function recording(name: string, events: readonly [string, number, string | undefined, object?][]): string {
  const file = join(dir, name);
  const header = JSON.stringify({ type: 'redlock-cli-trace', version: 1, source: '127.0.0.1:6379', startedAt: T0 });
  const lines = events.map(([kind, t, owner, extra]) => JSON.stringify({ type: 'event', kind, t: T0 + t, lock: 'orders', library: 'token', ...(owner ? { owner, client: { addr: `127.0.0.1:${owner === 'tok-a' ? 5001 : 5002}`, name: owner } } : {}), ...extra }));
  writeFileSync(file, `${[header, ...lines].join('\n')}\n`);
  return file;
}

const STALE = recording('stale.ndjson', [
  ['acquired', 0, 'tok-a', { leaseMs: 300 }],
  ['expired', 300, 'tok-a', { leaseMs: 300 }],
  ['acquired', 400, 'tok-b', { leaseMs: 1000 }],
  ['release-refused', 600, 'tok-a'],
]);
const WARNINGS_ONLY = recording('no-ttl.ndjson', [['acquired', 0, 'tok-a']]);

describe('trace --from FILE --scenario OUT', () => {
  it('writes a scenario the loader reads, says which finding and fault on stderr, and where on stdout', async () => {
    const out = join(dir, 'replay.yaml');
    const r = await runCli(['trace', '--from', STALE, '--scenario', out], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote ${out}: variants unsafe, longer-lease, watchdog; run it with: redlock-cli scenario run ${out}\n`);
    expect(r.stderr).toBe('trace: unsafe finding 1 (expired-while-held on orders): the fault is expiry before release\n');
    const s = await loadScenario(out);
    expect([s.lock.kind, s.lock.key, s.clients.map((c) => c.name)]).toEqual(['token', 'orders', ['A', 'B']]);
    expect(readFileSync(out, 'utf8')).toMatch(/^ {2}- \{ at: 0ms, client: A, do: acquire, lease: 300ms, only: unsafe \}$/m);
  }, 60_000);

  it.each([
    [['--scenario', 'x.yaml'], 2, '--scenario turns a recording into a scenario: add --from FILE'],
    [['--from', STALE, '--at', '14:03:07'], 2, '--at and --finding pick the finding --scenario replays: add --scenario FILE'],
    [['--from', STALE, '--scenario', 'x.yaml', '--json'], 2, '--scenario writes a file and prints one line: it takes no --json'],
    [['--from', STALE, '--scenario', 'x.yaml', '--finding', '0'], 2, '--finding takes the number of an unsafe finding, 1 for the first: got "0"'],
    [['--from', STALE, '--scenario', 'x.yaml', '--at', 'noon'], 2, '--at takes a time as trace prints it (14:03:07.250, UTC) or an ISO date and time (2026-11-28T14:03:07Z): got "noon"'],
    [['--from', STALE, '--scenario', 'x.yaml', '--finding', '3'], 4, 'trace --scenario: --finding 3: the recording has 2 unsafe findings'],
    [['--from', WARNINGS_ONLY, '--scenario', 'x.yaml'], 4, 'trace --scenario: no unsafe finding in the recording (only warnings: no-ttl): nothing to replay'],
  ])('%j: exit %i, one line, nothing written', async (args, code, line) => {
    const out = join(dir, 'x.yaml');
    const r = await runCli(['trace', ...args.map((a) => (a === 'x.yaml' ? out : a))], env);
    expect([r.code, r.stdout]).toEqual([code, '']);
    const first = r.stderr.trim().split('\n')[0]!;
    // Under --json the same line is the error object's message.
    expect(first.startsWith('{') ? JSON.parse(first).error.message : first).toBe(first.startsWith('{') ? line : `redlock-cli: ${line}`);
    expect(existsSync(out)).toBe(false);
  });
});
