import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, notes, runOnTime, scenario, servers, step } from './fixture.js';

// The watchdog on the client's own time: a paused client renews nothing, a client cut off from
// Redis cannot renew, and a bounded watchdog stops by itself.

describe('runVariant: watchdog renewals', () => {
  const fx = useSandbox({ topology: 'single', name: 'watchdog' });

  it('a pause longer than the watchdog lease stops renewals: the lock expires and B takes it', async () => {
    const s = scenario({
      lock: { kind: 'reentrant', key: 'orders' },
      variants: [
        { name: 'paused', description: 'A freezes', expect: [] },
        { name: 'running', description: 'A keeps running', expect: [] },
      ],
      steps: [
        acquire('A', 0, { watchdogLeaseMs: 300 }),
        step('A', 100, { do: 'pause', forMs: 700 }, ['paused']),
        step('A', 150, { do: 'enter' }),
        acquire('B', 600, { leaseMs: 500 }),
        step('A', 1000, { do: 'release', mode: 'safe' }),
      ],
    });
    const paused = await runOnTime(s, 'paused', { sandbox: fx.sandbox });
    if (!paused) return;
    let info = dump(paused);
    // Renewed before the pause (every 100 ms), then nothing until it ran out, at ~300 ms past the last renewal.
    const gone = servers(paused).find((e) => e.t > 100 && e.holders.length === 0);
    expect(gone, info).toBeDefined();
    expect(gone!.t, info).toBeGreaterThan(300);
    expect(gone!.t, info).toBeLessThan(600);
    expect(done(paused, 'B', 'acquire').phase, info).toBe('ok');
    // A hears about it only after its pause, and its section starts on a lock it no longer has.
    const lost = paused.events.find((e) => e.kind === 'lock-lost' && e.client === 'A');
    expect(lost?.t, info).toBeGreaterThanOrEqual(798);
    expect(done(paused, 'A', 'enter').held, info).toBe(false);
    expect(done(paused, 'A', 'release').phase, info).toBe('fail');

    const running = await runOnTime(s, 'running', { sandbox: fx.sandbox });

    if (!running) return;
    info = dump(running);
    expect(notes(running, 'A').filter((n) => n.startsWith('watchdog renewed')).length, info).toBeGreaterThanOrEqual(5);
    expect(done(running, 'B', 'acquire'), info).toMatchObject({ phase: 'fail', detail: expect.stringMatching(/^held by A/) });
    expect(done(running, 'A', 'release').phase, info).toBe('ok');
  });

  it('a client partition makes the renewals fail; a stopOnLost client then skips its write', async () => {
    const s = scenario({
      lock: { kind: 'reentrant', key: 'orders' },
      clients: [{ name: 'A', stopOnLost: true }, 'B'],
      steps: [
        acquire('A', 0, { watchdogLeaseMs: 300 }),
        step('A', 100, { do: 'partition' }),
        acquire('B', 600, { leaseMs: 500 }),
        step('A', 700, { do: 'heal' }),
        step('A', 800, { do: 'write', value: 1 }),
        step('B', 850, { do: 'write', value: 2 }),
      ],
    });
    const history = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    const a = notes(history, 'A');
    expect(a, info).toContain('cut off from n1');
    expect(a.some((n) => n.startsWith('renewal failed')) || a.some((n) => n.startsWith('lock lost')), info).toBe(true);
    expect(a.find((n) => n.startsWith('lock lost')), info).toBeDefined();
    expect(done(history, 'B', 'acquire').phase, info).toBe('ok');
    expect(a, info).toContain('skipped write: lock lost');
    expect(done(history, 'B', 'write'), info).toMatchObject({ accepted: true, held: true });
    expect(history.events.at(-1), info).toMatchObject({ kind: 'end', register: { value: 2, writer: 'B' } });
  });

  it('maxRenewals bounds the hold: the watchdog stops and the lock runs out', async () => {
    const s = scenario({
      lock: { kind: 'reentrant', key: 'orders' },
      steps: [acquire('A', 0, { watchdogLeaseMs: 300, maxRenewals: 2 }), acquire('B', 50, { leaseMs: 500, waitMs: 2000 })],
    });
    const history = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    expect(notes(history, 'A'), info).toEqual(['watchdog renewed (1)', 'watchdog renewed (2)', 'watchdog stops after 2 renewals (max)']);
    const b = done(history, 'B', 'acquire');
    expect(b.phase, info).toBe('ok');
    // Two renewals at ~100 and ~200 ms, then the last lease of 300 ms.
    expect(b.t, info).toBeGreaterThanOrEqual(480);
    expect(b.t - invoke(history, 'B', 'acquire').t, info).toBeLessThan(1500);
  });
});
