import { loopbackEndpoint } from '../../src/core/endpoint.js';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMonitor } from '../../src/redis/monitor.js';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { runTrace } from '../../src/trace/run.js';
import type { TraceSource } from '../../src/trace/source.js';
import { spawnCli } from '../helpers/cli-process.js';
import { useRedisServer } from '../helpers/fixture.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// Fences on a real server: once traffic stops, the trace's ECHO on its own MONITOR connection
// comes back after every line before it, so an open script run is decoded and a lease that ran
// out is reported at the server's time, without waiting for the next command or a local timer.
// The fence lines themselves never reach the output or a recording.

const TOKEN_RELEASE =
  'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const fx = useRedisServer({ builtCli: true });
const dir = mkdtempSync(join(tmpdir(), 'redlock-fence-'));
// A MONITOR line of one of our fences, as the server prints it.
const isFence = (line: string) => /\] "echo" "redlock-cli:trace-fence:\d+"$/i.test(line);

describe('trace fences (real server)', () => {
  it('after traffic stops, a release made by a script is decoded while the trace runs; fences never show in --json or the recording', async () => {
    // A second MONITOR of our own (ioredis's monitor() can take a monitor line for its ready
    // check's INFO reply on a busy machine: "Command queue state error").
    const seen: string[] = [];
    const watcher = await openMonitor({ ...loopbackEndpoint(fx.server.port), name: 'fence-test-watcher' }, { onLines: (lines) => void seen.push(...lines) });
    const record = join(dir, 'released.ndjson');
    const cli = spawnCli(['trace', '--json', '--record', record], tempStateEnv({ REDIS_URL: fx.server.url }));
    try {
      await cli.waitFor(/^trace: following the server/m); // said once MONITOR runs
      await fx.raw.set('job', 'tokA', 'PX', 30_000, 'NX');
      await fx.raw.eval(TOKEN_RELEASE, 1, 'job', 'tokA');
      // No command after the release: only a fence can complete its script run.
      await cli.waitFor(/"kind":"released"/);
      expect(cli.child.exitCode).toBe(null);
      expect(seen.some(isFence)).toBe(true);
    } finally {
      cli.child.kill('SIGINT');
      watcher.close();
    }
    expect(await cli.exited).toBe(0);
    const events = cli
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string } & TraceEvent)
      .filter((l) => l.type === 'event');
    expect(events.map((e) => `${e.kind} ${e.lock} ${e.owner}`)).toEqual([
      'attempt job tokA',
      'acquired job tokA',
      'released job tokA',
    ]);
    for (const text of [cli.out(), cli.err(), readFileSync(record, 'utf8')])
      expect(text).not.toMatch(/trace-fence|ECHO/i);
  }, 60_000);

  it("an abandoned lease expires at the server's time (its PTTL), reported once a fence has passed that time", async () => {
    let source!: TraceSource;
    let ready!: () => void;
    const started = new Promise<void>((r) => (ready = r));
    const abort = new AbortController();
    let expired: { event: TraceEvent; completeUntil: number | undefined } | undefined;
    const done = runTrace({
      spec: parseEndpointUrl(fx.server.url),
      wants: (lock) => lock === 'abandoned',
      signal: abort.signal,
      onStart: (_what, _session, s) => ((source = s), ready()),
      onEvents: (events) => {
        const event = events.find((e) => e.kind === 'expired');
        // What the trace knew complete at the moment it reported the expiry.
        if (event && !expired) expired = { event, completeUntil: source.stats.completeUntil };
      },
    });
    try {
      await started;
      const replies =
        (await fx.raw.multi().set('abandoned', 'tok', 'PX', 400, 'NX').pttl('abandoned').time().exec()) ?? [];
      const pttl = Number(replies[1]![1]);
      const [sec, usec] = replies[2]![1] as [string, string];
      const expiresAt = Number(sec) * 1000 + Number(usec) / 1000 + pttl;
      expect(pttl).toBeGreaterThan(0);
      for (let i = 0; i < 500 && !expired; i++) await new Promise((r) => setTimeout(r, 20));
      expect(expired, 'the expiry was reported while the trace ran').toBeDefined();
      expect(expired!.event).toMatchObject({ kind: 'expired', lock: 'abandoned', owner: 'tok' });
      expect(Math.abs(expired!.event.t - expiresAt)).toBeLessThanOrEqual(10);
      // Reported on a fence: the server's own clock had passed the expiry in a line the trace saw.
      expect(expired!.completeUntil).toBeGreaterThanOrEqual(expired!.event.t);
      expect(await fx.raw.exists('abandoned')).toBe(0);
    } finally {
      abort.abort();
      await done;
    }
  }, 60_000);
});
