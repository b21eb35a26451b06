import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFakeClocks } from '../../src/sandbox/clock.js';
import { useSandbox } from '../helpers/sandbox.js';

// Scenario S7's fault on a real redlock sandbox: one node's clock jumps, its copy of the lock
// expires early, the other nodes keep theirs. The nodes run under libfaketime from the start.
// The malloc shim is built into the state dir: a private one, not the user's.
const state = mkdtempSync(join(tmpdir(), 'redlock-clock-state-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));
const { options } = await withFakeClocks({ topology: 'redlock', nodes: 3, name: 'clocks' }, { ...process.env, XDG_STATE_HOME: state });
const fx = useSandbox(options);

const keyOn = async (node: string): Promise<number> => fx.client((await fx.sandbox.node(node)).port).pttl('lock');

describe('sandbox clock verb on nodes started with fake clocks', () => {
  it('clock n3 +10s expires a PX 10000 lock at once on n3 only', async () => {
    for (const n of ['n1', 'n2', 'n3']) await fx.client((await fx.sandbox.node(n)).port).set('lock', 'a', 'PX', 10_000);
    const result = await fx.sandbox.clock('n3', '+10s');
    expect(result.clock.method).toBe('faketime');
    expect(result.message).toMatch(/^clock \+10\.0 s on n3 via libfaketime: its wall clock is now \+10\.0 s off real time, running x1$/);
    expect(await keyOn('n3')).toBe(-2);
    expect(await keyOn('n1')).toBeGreaterThan(9000);
    expect(await keyOn('n2')).toBeGreaterThan(9000);
  });

  it('clock n2 x10 makes a 2 s lease last about 200 ms there', async () => {
    await fx.sandbox.clock('n2', 'x10');
    const n2 = fx.client((await fx.sandbox.node('n2')).port);
    // Timed from before the SET (a late reply must not shorten the lifetime seen), bounded by time.
    const t0 = performance.now();
    await n2.set('fast', '1', 'PX', 2000);
    while ((await n2.exists('fast')) === 1 && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
    const lived = performance.now() - t0;
    expect(lived).toBeGreaterThan(170);
    // Never before 200 ms; the upper bound leaves room for a loaded box (the whole suite runs 4
    // files on 2 cores) and is still far from the 2 s the key lives at real speed.
    expect(lived).toBeLessThan(1200);
    expect((await fx.sandbox.clock('n2', 'x1')).clock.rate).toBe(1);
  });

  it('a restarted node runs under libfaketime again, on the clock it had', async () => {
    const restarted = await fx.sandbox.restart('n3');
    expect(restarted.message).toMatch(/with LD_PRELOAD, FAKETIME_TIMESTAMP_FILE/);
    const again = await fx.sandbox.clock('n3', '+5s');
    expect(again.clock.method).toBe('faketime');
    // The skew is read against the middle of a TIME round trip, which a busy machine stretches.
    expect(Math.abs(again.clock.skewMs - 15_000)).toBeLessThan(150);
    const pids = fx.sandbox.nodes.map((n) => String(n.pid));
    expect(readdirSync('/dev/shm').filter((f) => f.includes('faketime') && pids.some((p) => f.endsWith(`_${p}`)))).toEqual([]);
  });

  it('refuses a change it cannot parse', async () => {
    await expect(fx.sandbox.clock('n1', 'tomorrow')).rejects.toThrow(/invalid clock change "tomorrow"/);
  });
});
