import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent, OpEvent } from '../../src/core/scenario/history.js';
import type { RaceResult } from '../../src/race/run.js';
import { runCli } from '../helpers/run-cli.js';
import { env, kinds, ops, plan, race } from './helpers.js';

// The chaos verbs chaos.test.ts and procs.test.ts leave out: latency (through the CLI, as a user
// runs it, on a sandbox with the fault proxy) and kill-holder on in-process clients (no --procs).
const sandboxDirs = (): string[] => {
  try {
    return readdirSync(join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'));
  } catch {
    return [];
  }
};

interface RaceJson {
  safe: boolean;
  acquisitions: number;
  lostLocks: number;
  faults: string[];
  violations: { kind: string }[];
  keys: { acquisitions: number; increments: number; counter: number; history: { events: HistoryEvent[] } }[];
}

const isOp = (e: HistoryEvent): e is OpEvent => e.kind === 'op';

describe('race --chaos latency and in-process kill-holder', () => {
  it('latency slows every round trip by a lease while it lasts: acquisitions take that long, releases find their lease gone, safety and the counter hold', async () => {
    // Lease 400 ms: the latency is 400 ms per round trip (200 each way), from 2.1 s on for 2 s;
    // the next fault would not end before the race does, so there is one. Acquisitions are judged
    // in the 1.6 s of it that leave a whole round trip: with 1.2 s of latency that was 770 ms, and
    // beside two hogs per core a starved race once sent no acquisition in it.
    const argv = ['race', 'orders', '--kind', 'token', '--clients', '4', '--duration', '4500ms', '--lease', '400ms', '--hold', '10ms'];
    const r = await runCli([...argv, '--chaos', 'latency', '--chaos-every', '2100ms', '--chaos-for', '2000ms', '--json'], env);
    const out = JSON.parse(r.stdout) as RaceJson;
    expect(out.faults).toEqual([expect.stringMatching(/^2\.\d s latency n1: 400 ms more per round trip for 2000 ms$/) as unknown]);
    const events = out.keys[0]!.history.events;
    const fault = events.filter((e) => e.kind === 'fault' && e.verb === 'latency');
    expect(fault.map((e) => e.kind === 'fault' && e.phase)).toEqual(['invoke', 'ok']);
    const [from, to] = [fault[0]!.t, fault[1]!.t];

    // Every acquisition sent while the latency was on (and at least a round trip before it ended)
    // took a whole round trip of it, granted or timed out. There is one: the holder at the start of
    // the fault is done with its release within a round trip and tries again.
    const acquires = events.filter(isOp).filter((e) => e.op === 'acquire');
    const invokedAt = new Map(acquires.filter((e) => e.phase === 'invoke').map((e) => [e.id, e.t]));
    const slowed = acquires
      .filter((e) => e.phase !== 'invoke' && invokedAt.get(e.id)! > from + 30 && invokedAt.get(e.id)! < to - 400)
      .map((e) => Math.round(e.t - invokedAt.get(e.id)!));
    expect(slowed.length).toBeGreaterThan(0);
    expect(slowed.filter((ms) => ms < 380)).toEqual([]);
    // The lock changed hands a few times in the fault's 2 s, against dozens in the 2 s before it.
    const granted = (a: number, b: number): number => acquires.filter((e) => e.phase === 'ok' && e.t > a && e.t < b).length;
    expect(granted(from, to) * 4).toBeLessThan(granted(from - (to - from), from));
    // Their owner-checked release arrives after the lease ran out on the server: a lost lock, no harm done.
    expect(out.lostLocks).toBeGreaterThan(0);

    // The verdict and the figures agree: safe, exit 0, and every increment is in the counter.
    expect(out.violations).toEqual([]);
    expect([r.code, out.safe]).toEqual([0, true]);
    expect(out.keys[0]!.acquisitions).toBe(out.acquisitions);
    expect(out.keys[0]!.counter).toBe(out.keys[0]!.increments);
    expect(out.keys[0]!.increments).toBeGreaterThan(20);
    expect(sandboxDirs()).toEqual([]);
  }, 30_000);

  it("kill-holder in-process crashes the holding client (no release); a successor joins, and the lock is free again only when the dead holder's lease runs out", async () => {
    const r: RaceResult = await race(
      plan('', { kind: 'reentrant', clients: 4, durationMs: 3000, leaseMs: 300, holdMs: 20, chaos: 'kill-holder', chaosEveryMs: 800, target: { type: 'fresh' } }),
    );
    const [k] = r.keys;
    const done = k!.history.events.filter((e) => e.kind === 'fault' && e.verb === 'kill-holder' && e.phase === 'ok');
    expect(done.length).toBeGreaterThanOrEqual(2);
    const victims = done.map((e) => {
      const m = /^(c\d+(?:\.\d+)?) crashed \(sockets dropped, no release\); (c\d+\.\d+) joins$/.exec(e.kind === 'fault' ? (e.detail ?? '') : '');
      expect(m, e.kind === 'fault' ? e.detail : '').not.toBeNull();
      return { crashed: m![1]!, successor: m![2]! };
    });
    let inside = 0;
    for (const { crashed, successor } of victims) {
      const crashAt = ops(r, 'crash', 'ok').find((e) => e.client === crashed)!.t;
      // A successor under a new name joins and contends (the lock is not fair: it may not win in time).
      expect(k!.clients).toContain(successor);
      expect(ops(r, 'acquire', 'invoke').some((e) => e.client === successor && e.t >= crashAt)).toBe(true);
      // Nothing the victim did completes after its death.
      expect(k!.history.events.some((e) => e.kind === 'op' && e.client === crashed && e.phase !== 'invoke' && e.op !== 'crash' && e.t > crashAt)).toBe(false);
      // A victim killed inside its critical section (its release not yet sent) keeps the lock until
      // the lease it last renewed runs out: nobody gets it for a good part of the 300 ms lease.
      const lastAcquire = ops(r, 'acquire', 'ok').filter((e) => e.client === crashed && e.t < crashAt).at(-1)!;
      if (ops(r, 'release', 'invoke').some((e) => e.client === crashed && e.t > lastAcquire.t)) continue;
      inside++;
      const next = ops(r, 'acquire', 'ok').find((e) => e.t > crashAt);
      if (next) expect(next.t - crashAt).toBeGreaterThan(150);
    }
    expect(inside).toBeGreaterThan(0);
    expect(r.stats.crashed).toBe(done.length);
    expect(kinds(r)).toEqual([]);
    // A crash can land between an increment's write and its completion, never the other way.
    expect(k!.counter).toBeGreaterThanOrEqual(k!.increments);
    expect(k!.counter - k!.increments).toBeLessThanOrEqual(done.length);
    expect(sandboxDirs()).toEqual([]);
  }, 30_000);
});
