import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { sideEffects } from '../helpers/read-only.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';
import { watchCommands } from '../helpers/monitor.js';
import { startTrace } from './trace-fixture.js';

// The same traffic seen three ways: live, from our recording, and from a log saved with
// `redis-cli monitor`. All three must give the same events and the same findings. And the trace
// itself, seen by another MONITOR, sends nothing that writes (its ECHO fences are read-only).

const TOKEN_RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const fx = useRedisServer();
const dir = mkdtempSync(join(tmpdir(), 'redlock-trace-'));

/** Safe and unsafe token-lock traffic from named clients, with a hostile key name among them. */
async function traffic(): Promise<void> {
  const [a, b, c] = [rawClient(fx.server), rawClient(fx.server), rawClient(fx.server)];
  await a.client('SETNAME', 'worker-a');
  await b.client('SETNAME', 'worker-b');
  for (let i = 0; i < 20; i++) {
    await a.set('safe', `a${i}`, 'PX', 5000, 'NX');
    await a.eval(TOKEN_RELEASE, 1, 'safe', `a${i}`);
  }
  await a.set('job', 'tokA', 'PX', 150, 'NX'); // A "pauses" past its lease...
  await new Promise((r) => setTimeout(r, 300));
  await b.set('job', 'tokB', 'PX', 5000, 'NX'); // ...B takes the lock...
  await a.eval(TOKEN_RELEASE, 1, 'job', 'tokA'); // ...A comes back and its release is refused.
  await c.set('evil"\x1b[31m key', 'x', 'PX', 5000, 'NX');
  await c.del('evil"\x1b[31m key');
  for (const r of [a, b, c]) r.disconnect();
}

const comparable = (events: readonly TraceEvent[]) =>
  events
    .filter((e) => !e.lock.startsWith('trace-marker-'))
    .map((e) => [e.kind, e.lock, e.owner ?? null, Math.round(e.t * 1000) / 1000, e.client?.addr ?? null, e.client?.name ?? null])
    .sort((x, y) => (x[3] as number) - (y[3] as number) || String(x[0]).localeCompare(String(y[0])));

describe('trace --from', () => {
  it('a saved redis-cli monitor log and our recording give the events and findings of the live run', async () => {
    const logFile = join(dir, 'monitor.log');
    const recordFile = join(dir, 'trace.ndjson');
    const log = createWriteStream(logFile);
    const cli = spawn('redis-cli', ['-p', String(fx.server.port), 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
    cli.stdout.pipe(log);
    await eventually(async () => readFileSync(logFile, 'utf8').startsWith('OK'), 5000);
    const trace = await startTrace(parseEndpointUrl(fx.server.url), { record: recordFile });
    await traffic();
    await trace.stop(fx.raw);
    await eventually(async () => readFileSync(logFile, 'utf8').includes('trace-marker-'), 5000);
    cli.kill('SIGTERM');
    await new Promise((r) => cli.once('exit', r));

    const live = comparable(trace.events);
    // Attempts are part of all three: one before each acquisition and each refusal.
    expect(live.filter((e) => e[0] === 'attempt').length).toBe(live.filter((e) => e[0] === 'acquired' || e[0] === 'refused').length);
    expect(trace.findings.map((f) => f.kind)).toEqual(['expired-while-held', 'overlap', 'foreign-delete']);
    const env = tempStateEnv();
    for (const file of [logFile, recordFile]) {
      const { code, stdout } = await runCli(['trace', '--from', file, '--json'], env);
      expect(code, file).toBe(7);
      const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string } & TraceEvent);
      expect(comparable(lines.filter((l) => l.type === 'event')), file).toEqual(live);
      const findings = lines.filter((l) => l.type === 'finding').map(({ type: _type, ...f }) => f) as unknown as typeof trace.findings;
      expect(findings.filter((f) => !f.lock.startsWith('trace-marker-')), file).toEqual(trace.findings);
    }
    // The text form escapes the hostile key: no raw escape byte reaches the terminal.
    const text = await runCli(['trace', '--from', logFile], env);
    expect(text.code).toBe(7);
    expect(text.stdout).not.toContain('\x1b');
    expect(text.stdout).toContain('"evil\\"\\x1b[31m key"');
    expect(text.stdout).toMatch(/overlap job .*worker-b.*worker-a/);
  }, 60_000);

  it('trace sends nothing that writes: another MONITOR sees only reads from its connections', async () => {
    const watcher = await watchCommands(fx.server);
    const { seen } = watcher;
    const trace = await startTrace(parseEndpointUrl(fx.server.url));
    await traffic();
    await trace.stop(fx.raw);
    await fx.raw.ping();
    await new Promise((r) => setTimeout(r, 50));
    watcher.close();
    const ours = new Set(seen.filter((s) => s.args[0]?.toLowerCase() === 'client' && s.args[2] === 'redlock-cli:trace').map((s) => s.source));
    expect(ours.size).toBeGreaterThanOrEqual(2); // the MONITOR connection and the CLIENT LIST one
    const sent = seen.filter((s) => ours.has(s.source)).map((s) => s.args);
    expect(sent.length).toBeGreaterThan(0);
    // Its fences are allowed, explicitly: an ECHO of its marker on its MONITOR connection, no other ECHO.
    const isFence = (args: readonly string[]) => args.length === 2 && args[0]!.toLowerCase() === 'echo' && /^redlock-cli:trace-fence:\d+$/.test(args[1]!);
    expect(sent.filter(isFence).length).toBeGreaterThan(0);
    expect(sent.filter((args) => args[0]!.toLowerCase() === 'echo' && !isFence(args))).toEqual([]);
    // Everything it sent, fences too, judged by the server's own flags: nothing that writes.
    expect(await sideEffects(fx.raw, sent)).toEqual([]);
  }, 60_000);

  it('bad input: a missing file or a file that is neither format is a usage error', async () => {
    const env = tempStateEnv();
    const missing = await runCli(['trace', '--from', join(dir, 'nope.log')], env);
    expect([missing.code, missing.stderr.trim()]).toEqual([2, `redlock-cli: --from: cannot read ${join(dir, 'nope.log')}: no such file`]);
    const junk = join(dir, 'junk.txt');
    createWriteStream(junk).end('hello\nworld\n');
    await new Promise((r) => setTimeout(r, 50));
    const bad = await runCli(['trace', '--from', junk], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/neither a redlock-cli trace recording nor a `redis-cli monitor` log/);
  });
});
