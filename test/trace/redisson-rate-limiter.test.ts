import { afterEach, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { knownDigest } from '../../src/core/trace/digest-catalogue.js';
import { eventLine } from '../../src/core/trace/format.js';
import { useRedisServer } from '../helpers/fixture.js';
import { watchCommands } from '../helpers/monitor.js';
import { describeWithPeer, runRateLimiter, stopAllPeers } from '../helpers/redisson-peer.js';
import { startTrace } from './trace-fixture.js';

// The real Redisson 3.52 RRateLimiter (test/helpers/RedissonRateLimit.java) under a live trace.
// A first run loads its scripts into the server, so the traced run sends only EVALSHA: what the
// trace knows of them comes from the digest catalogue and the commands they ran. setRate is
// `configured`, each granted tryAcquire `acquired` with its permits, the one that found too few
// `refused`; no finding, since permits are taken, never held.

const fx = useRedisServer();
afterEach(async () => {
  await stopAllPeers();
});

describeWithPeer("Redisson's rate limiter under a live trace, from EVALSHA alone", () => {
  it('names setRate, each grant with its permits and its client, and the refusal', async () => {
    const port = fx.server.port;
    const warm = await runRateLimiter(port, { name: 'warm-up', type: 'PER_CLIENT', rate: 1, intervalMs: 60_000 }, ['0:1', '0:1']);
    expect(warm.code, warm.output).toBe(0);

    const trace = await startTrace(parseEndpointUrl(fx.server.url), { wants: (lock) => lock === 'per-user' || lock.startsWith('trace-marker') });
    const watch = await watchCommands(fx.server);
    const run = await runRateLimiter(port, { name: 'per-user', type: 'PER_CLIENT', rate: 3, intervalMs: 3_600_000 }, ['0:2', '1:3', '0:2']);
    expect(run.code, run.output).toBe(0);
    expect(run.events.map((e) => e.event)).toEqual(['rate-set', 'acquired', 'acquired', 'failed', 'done']);
    const [first, second] = run.events.find((e) => e.event === 'done')!.clients!;
    await trace.stop(fx.raw);
    watch.close();

    // The traced run's scripts: EVALSHA only, every digest in the catalogue as Redisson's.
    const calls = watch.seen.filter((l) => l.source !== 'lua' && /^EVAL/i.test(l.args[0]!) && l.args.includes('per-user'));
    expect(calls.length).toBe(4);
    expect(new Set(calls.map((l) => l.args[0]!.toUpperCase()))).toEqual(new Set(['EVALSHA']));
    const near = calls.map((l) => knownDigest(l.args[1]!)).map((d) => [d?.library, d?.near]);
    expect(near).toEqual([
      ['redisson', 'setRateAsync'],
      ['redisson', 'tryAcquireAsync'],
      ['redisson', 'tryAcquireAsync'],
      ['redisson', 'tryAcquireAsync'],
    ]);

    const all = trace.events.filter((e) => e.lock === 'per-user');
    // Each tryAcquire is announced as an attempt before its outcome, as every acquisition is.
    expect(all.filter((e) => e.kind === 'attempt').map((e) => [e.library, e.owner])).toEqual([
      ['rate-limiter', first],
      ['rate-limiter', second],
      ['rate-limiter', first],
    ]);
    const events = all.filter((e) => e.kind !== 'attempt');
    expect(events.map((e) => [e.kind, e.library, e.owner, e.count])).toEqual([
      ['configured', 'rate-limiter', expect.any(String), undefined],
      ['acquired', 'rate-limiter', first, 2],
      ['acquired', 'rate-limiter', second, 3],
      ['refused', 'rate-limiter', first, undefined],
    ]);
    expect(events[0]!.detail).toBe('3 permits per 3600000 ms, per client (setRate: client states reset)');
    expect(eventLine(events[3]!)).toContain('refused');
    expect(trace.findings.filter((f) => f.lock === 'per-user')).toEqual([]);
  }, 120_000);
});
