import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { RaceKind } from '../../src/core/race/plan.js';
import type { OpEvent } from '../../src/core/scenario/history.js';
import type { RaceResult } from '../../src/race/run.js';
import { ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { plan, race } from './helpers.js';

// Every single-server kind times its waits and holds on the server's clock too (TIME behind each
// lock command). Order facts only: the server's wait lies inside the client's (it starts after
// the invoke and ends before the reply), and the server's hold contains the client's stay inside
// (it starts before the grant reached the client and ends after the release was sent).

let server: RedisServer;
beforeAll(async () => {
  ensureBuilt(); // the --procs case runs dist/race/worker.js
  server = await startRedis();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

interface Cycle {
  readonly clientWaitMs: number;
  readonly serverWaitMs: number | undefined;
  readonly clientInsideMs: number | undefined;
  readonly serverHoldMs: number | undefined;
  readonly released: string | undefined;
}

/** Each client's acquisitions in order: client- and server-timed figures side by side. */
function cycles(r: RaceResult): Cycle[] {
  const out: Cycle[] = [];
  for (const k of r.keys) {
    const open = new Map<string, { invokedAt: number; ok?: OpEvent; releaseAt?: number }>();
    for (const e of k.history.events) {
      if (e.kind !== 'op') continue;
      const c = open.get(e.client);
      if (e.op === 'acquire' && e.phase === 'invoke') open.set(e.client, { invokedAt: e.t });
      else if (e.op === 'acquire' && e.phase === 'ok' && c) c.ok = e;
      else if (e.op === 'release' && e.phase === 'invoke' && c) c.releaseAt = e.t;
      else if (e.op === 'release' && e.phase === 'ok' && c?.ok) {
        out.push({
          clientWaitMs: c.ok.t - c.invokedAt,
          serverWaitMs: c.ok.serverWaitMs,
          clientInsideMs: c.releaseAt === undefined ? undefined : c.releaseAt - c.ok.t,
          serverHoldMs: e.serverHoldMs,
          released: e.detail,
        });
        open.delete(e.client);
      }
    }
  }
  return out;
}

// Clocks read to the µs on both sides; a millisecond of slack covers rounding and clock rates.
const SLACK_MS = 1;

describe('race: waits and holds on the server clock', () => {
  const kinds: RaceKind[] = ['token', 'reentrant', 'fenced', 'spin', 'fair', 'write'];
  for (const kind of kinds) {
    it(`${kind}: every acquisition and release timed on the server, inside the client's own figures`, async () => {
      const r = await race(plan(server.url, { kind, keys: [`st-${kind}`], clients: 4, durationMs: 1500, leaseMs: 2000, holdMs: 5, holdDist: 'uniform' }));
      const all = cycles(r);
      expect(all.length).toBeGreaterThan(5);
      const outside = all.filter(
        (c) =>
          c.serverWaitMs === undefined ||
          c.serverHoldMs === undefined ||
          c.serverWaitMs > c.clientWaitMs + SLACK_MS ||
          (c.clientInsideMs !== undefined && c.serverHoldMs < c.clientInsideMs - SLACK_MS),
      );
      expect(outside, JSON.stringify(outside.slice(0, 5))).toEqual([]);
      expect(r.stats.serverTimed?.waits.count).toBe(r.stats.acquisitions);
      expect(r.stats.serverTimed?.holds.count).toBe(all.length);
    }, 30_000);
  }

  it('in worker processes too (the figures cross with the history)', async () => {
    const r = await race(plan(server.url, { kind: 'token', keys: ['st-procs'], clients: 4, procs: 2, durationMs: 1500, holdMs: 5 }));
    expect(r.stats.acquisitions).toBeGreaterThan(5);
    expect(r.stats.serverTimed?.waits.count).toBe(r.stats.acquisitions);
  }, 60_000);

  it('Redlock is timed at the clients only: its nodes each have their own clock', async () => {
    const others = [await startRedis(), await startRedis()];
    try {
      const nodes = [server, ...others].map((s) => parseEndpointUrl(s.url));
      const r = await race(plan(server.url, { kind: 'redlock', keys: ['st-redlock'], clients: 3, durationMs: 800, holdMs: 5, target: { type: 'url', endpoint: nodes[0]!, nodes } }));
      expect(r.stats.acquisitions).toBeGreaterThan(0);
      expect(r.stats.serverTimed).toBeUndefined();
    } finally {
      for (const s of others) await s.stop();
    }
  }, 30_000);
});
