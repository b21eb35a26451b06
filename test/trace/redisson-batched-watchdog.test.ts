import { afterEach, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Finding } from '../../src/core/trace/checker.js';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { useRedisServer } from '../helpers/fixture.js';
import { watchCommands } from '../helpers/monitor.js';
import { describeWithPeer, startMultiHolder, startPeer, stopAllPeers } from '../helpers/redisson-peer.js';
import { eventually } from '../helpers/sandbox.js';
import { startTrace } from './trace-fixture.js';

// The real Redisson 3.52 client under a live trace. X holds three locks, so its watchdog renews
// them in one batched script run; X is frozen (SIGSTOP) past its lease; Y takes beta and holds it
// 1.5 s; X wakes (SIGCONT): its batch finds none of its locks; after Y's release X's unlocks are
// refused. The trace splits each batch per lock, and the windows of its findings run to X's
// last act: the overlap on beta covers Y's whole hold on the server's clock.

const fx = useRedisServer();
afterEach(async () => {
  await stopAllPeers();
});

const LOCKS = ['alpha', 'beta', 'gamma'];
const of = (events: readonly TraceEvent[], kind: TraceEvent['kind'], owner: string) => events.filter((e) => e.kind === kind && e.owner === owner);
/** Times at which `owner` had every lock of LOCKS in one event kind at once: one script run. */
const together = (events: readonly TraceEvent[], kind: TraceEvent['kind'], owner: string) => {
  const locksAt = new Map<number, Set<string>>();
  for (const e of of(events, kind, owner)) locksAt.set(e.t, (locksAt.get(e.t) ?? new Set()).add(e.lock));
  return [...locksAt].filter(([, locks]) => locks.size === LOCKS.length).map(([t]) => t);
};

describeWithPeer("Redisson's batched watchdog under a live trace", () => {
  it("splits each batch per lock, and the findings' windows run to the frozen holder's refused unlock", async () => {
    const trace = await startTrace(parseEndpointUrl(fx.server.url), { wants: (lock) => LOCKS.includes(lock) || lock.startsWith('trace-marker') });
    const watch = await watchCommands(fx.server);
    const port = fx.server.port;
    // A 3 s lease renewed every second: a late renewal on a loaded machine is not an expiry.
    const x = startMultiHolder(port, LOCKS, 3000);
    const xOwner = (await x.waitFor('acquired', { timeoutMs: 60_000, match: (e) => e.key === 'gamma' })).token;
    await eventually(async () => together(trace.events, 'renewed', xOwner).length > 0, 30_000);
    const y = startPeer(port, ['trylock', 'lock', 'beta', '60000', '-1', '--hold', '1500']);
    await eventually(async () => trace.events.some((e) => e.kind === 'refused' && e.lock === 'beta'), 60_000);
    process.kill(x.pid, 'SIGSTOP');
    const yOwner = (await y.waitFor('acquired', { timeoutMs: 60_000 })).token;
    process.kill(x.pid, 'SIGCONT');
    await eventually(async () => together(trace.events, 'renew-refused', xOwner).length > 0, 30_000);
    expect(await y.exited, y.output()).toBe(0);
    await x.stop(); // SIGTERM: its shutdown hook unlocks each lock, and the server refuses
    await eventually(async () => of(trace.events, 'release-refused', xOwner).length === LOCKS.length, 30_000);
    await trace.stop(fx.raw);
    watch.close();
    const { events } = trace;

    // Each batch is one renewal per lock; the one X ran on waking is one refused renewal per lock.
    expect(together(events, 'renew-refused', xOwner)).toHaveLength(1);
    expect(of(events, 'renew-refused', xOwner).map((e) => e.lock).sort()).toEqual(LOCKS);

    // Y's hold on the server's clock, from another MONITOR: its hincrby, and the del of its unlock.
    const yIn = watch.seen.find((l) => l.source === 'lua' && l.args[0] === 'hincrby' && l.args[2] === yOwner)!.t;
    const yOut = watch.seen.find((l) => l.source === 'lua' && l.args[0] === 'del' && l.args[1] === 'beta' && l.t > yIn)!.t;
    expect(yOut - yIn).toBeGreaterThanOrEqual(1500);

    const issued = (kind: Finding['kind'], lock: string) => trace.findings.filter((f) => f.kind === kind && f.lock === lock);
    const [first, ...updates] = issued('overlap', 'beta');
    // Issued at X's refused renewal, then again with the longer window once X's unlock was refused.
    expect(first?.owners).toEqual([xOwner, yOwner]);
    expect(first?.to).toBe(of(events, 'renew-refused', xOwner)[0]!.t);
    expect(updates.map((f) => f.update)).toEqual([true]);
    const overlap = updates[0]!;
    expect(Math.abs(overlap.from - yIn)).toBeLessThanOrEqual(10);
    expect(Math.abs(overlap.to - yOut)).toBeLessThanOrEqual(10);
    for (const lock of LOCKS) {
      const last = issued('expired-while-held', lock).at(-1)!;
      expect(last.to, lock).toBe(of(events, 'release-refused', xOwner).find((e) => e.lock === lock)!.t);
    }
  }, 240_000);
});
