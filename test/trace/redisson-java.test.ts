import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { afterAll, expect, it } from 'vitest';
import { useRedisServer } from '../helpers/fixture.js';
import { describeWithPeer, startPeer, stopAllPeers, type PeerKind } from '../helpers/redisson-peer.js';
import { startTrace } from './trace-fixture.js';

// The real Redisson 3.52.0 (Java) client under trace: its own scripts (sent with EVAL and EVALSHA),
// watchdog and unlock latch. Every hold a JVM reports appears in the trace with the hash field it
// wrote as owner: lock (watchdog renewals too), fair and read (two JVMs each, contending when their
// starts overlap), then write, fenced and spin.

const fx = useRedisServer();
afterAll(async () => {
  await stopAllPeers();
});

describeWithPeer('trace decodes the real Redisson (Java) client', () => {
  it('every acquisition and release it reports, with its owner; renewals of its watchdog; no finding', async () => {
    const trace = await startTrace(parseEndpointUrl(fx.server.url));
    const hold = (kind: PeerKind, name: string, ms: number, watchdogMs = 30_000) => ({ kind, peer: startPeer(fx.server.port, ['hold', kind, name, String(ms), '--wait', '30000'], { watchdogMs }) });
    // Two waves of JVMs, so a loaded machine does not starve a watchdog into losing its lock.
    const first = [hold('lock', 'j-lock', 4000, 3000), hold('fair', 'j-fair', 300), hold('fair', 'j-fair', 300), hold('read', 'j-rw', 800)];
    for (const { peer } of first) expect(await peer.exited, JSON.stringify(peer.events) + peer.output()).toBe(0);
    const second = [hold('read', 'j-rw', 300), hold('write', 'j-rw', 300), hold('fenced', 'j-fenced', 300), hold('spin', 'j-spin', 300)];
    for (const { peer } of second) expect(await peer.exited, JSON.stringify(peer.events) + peer.output()).toBe(0);
    const peers = [...first, ...second];
    await trace.stop(fx.raw);

    for (const { kind, peer } of peers) {
      const acquired = peer.events.find((e) => e.event === 'acquired');
      const released = peer.events.find((e) => e.event === 'released');
      expect(acquired && released?.ok).toBe(true);
      const owner = kind === 'write' ? `${acquired!.token}:write` : acquired!.token;
      const mine = trace.events.filter((e) => e.lock === acquired!.key && e.owner === owner).map((e) => e.kind);
      const [joins, leaves] = kind === 'read' ? ['reader-join', 'reader-leave'] : ['acquired', 'released'];
      expect(mine.filter((k) => k === joins), `${kind} ${owner}: ${mine.join(',')}`).toHaveLength(1);
      expect(mine.filter((k) => k === leaves), `${kind} ${owner}: ${mine.join(',')}`).toHaveLength(1);
    }
    // The 3 s watchdog renewed the 4 s hold every second.
    const watchdog = first[0]!.peer.events.find((e) => e.event === 'acquired')!;
    expect(trace.events.filter((e) => e.kind === 'renewed' && e.owner === watchdog.token).length).toBeGreaterThanOrEqual(2);
    expect(trace.findings).toEqual([]);
    expect(trace.events.filter((e) => e.kind === 'raw' || e.kind === 'expired')).toEqual([]);
  }, 120_000);
});
