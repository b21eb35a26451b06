import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseScenario } from '../../src/scenario/load.js';
import { toleranceOf } from '../../src/scenario/model.js';
import { runVariant } from '../../src/scenario/runner.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, notes, ops, runOnTime, scenario, servers, step } from './fixture.js';
import { edit, parseError } from './fixtures.js';

// Acquire options the replicas-and-queues scenarios need (S9a, S10, S11, S17): stop-on-lost on one
// acquisition, a fair lock's lock() allowance, the writer-preferring discipline on a read-write
// lock, and Redisson <= 4.3's renewal of every reader.

describe('the acquire options and node: replicas in a file', () => {
  it('map onto the model', () => {
    const text = edit(
      '{ at: 0ms, client: A, do: acquire, lease: 300ms }',
      '{ at: 0ms, client: A, do: acquire, lease: 300ms, stop-on-lost: true, fair-wait-timeout: 3s, writer-preference: true, renew-readers: all }',
    );
    expect(parseScenario(text, 'x.yaml').steps[0]).toMatchObject({ stopOnLost: true, fairWaitTimeoutMs: 3000, writerPreference: true, renewReaders: 'all' });
    const stall = edit('{ at: 1s, fault: kill, node: n1 }', '{ at: 1s, fault: stall-replication, node: replicas, for: 500ms }');
    expect(parseScenario(stall, 'x.yaml').steps.at(-1)).toMatchObject({ fault: 'stall-replication', node: 'replicas', forMs: 500 });
  });

  it('refuse a bad value, and replicas where the topology has none', () => {
    expect(parseError(edit('lease: 300ms }', 'lease: 300ms, renew-readers: some }'))).toMatch(/renew-readers: .*expected one of own, all/);
    expect(parseError(edit('lease: 300ms }', 'lease: 300ms, fair-wait-timeout: 300 }'))).toMatch(/fair-wait-timeout/);
    const single = edit('{ topology: replicated }', '{ topology: single }', edit('node: n1 }', 'node: replicas }'));
    expect(parseError(single)).toMatch(/unknown node "replicas"; topology single has n1, primary/);
  });
});

describe('runVariant: acquire options for lost locks, fair queues and read-write locks', () => {
  const fx = useSandbox({ topology: 'single', name: 'runner-queues' });

  it('stop-on-lost on an acquire: the client leaves its section when the lease runs out and skips its write; without it, it stays and writes', async () => {
    const s = scenario({
      variants: [
        { name: 'stops', description: 'A reacts to the loss', expect: [] },
        { name: 'unaware', description: 'A does not', expect: [] },
      ],
      steps: [
        acquire('A', 0, { leaseMs: 300, stopOnLost: true, only: ['stops'] }),
        acquire('A', 0, { leaseMs: 300, only: ['unaware'] }),
        step('A', 20, { do: 'enter' }),
        step('A', 500, { do: 'write', value: 1 }),
        step('A', 550, { do: 'leave' }),
      ],
    });
    const stops = await runOnTime(s, 'stops', { sandbox: fx.sandbox });
    if (!stops) return;
    let info = dump(stops);
    const left = ops(stops).filter((e) => e.client === 'A' && e.op === 'leave');
    expect(left.map((e) => e.phase), info).toEqual(['invoke', 'ok']);
    expect(left[0], info).toMatchObject({ detail: 'lock lost: stops its work' });
    // The check-only loop counts the lease from the acquire: it runs out at 300 ms. It may end it
    // sooner, never later: a check's PTTL is counted from when the check was sent, so a reply the
    // busy machine delayed brings the end forward by up to that round trip, which the run allows
    // up to its tolerance (a longer one makes the run inconclusive, and runOnTime retries it).
    expect(left[0]!.t, info).toBeGreaterThanOrEqual(300 - toleranceOf(s, 'stops'));
    expect(left[0]!.t, info).toBeLessThan(450);
    const told = notes(stops, 'A');
    expect(told[0], info).toMatch(/^lease ran out|^lock lost/);
    expect(told.slice(1), info).toEqual(['skipped write: lock lost', 'skipped leave: stopped its work when the lock was lost']);
    expect(stops.events.at(-1), info).toMatchObject({ kind: 'end', register: {} });

    const unaware = await runOnTime(s, 'unaware', { sandbox: fx.sandbox });

    if (!unaware) return;
    info = dump(unaware);
    expect(done(unaware, 'A', 'write'), info).toMatchObject({ accepted: true, held: false });
    expect(done(unaware, 'A', 'leave').t, info).toBeGreaterThanOrEqual(548);
  });

  it('fair-wait-timeout: a dead lock() waiter blocks the next one for its allowance after the lease, however long it meant to wait', async () => {
    const s = scenario({
      clients: ['A', 'W1', 'W2'],
      lock: { kind: 'fair', key: 'jobs' },
      steps: [
        acquire('A', 0, { leaseMs: 400 }),
        acquire('W1', 50, { leaseMs: 1000, waitMs: 5000, fairWaitTimeoutMs: 400 }),
        acquire('W2', 100, { leaseMs: 1000, waitMs: 5000, fairWaitTimeoutMs: 400 }),
        step('W1', 150, { do: 'crash' }),
        step('A', 200, { do: 'release', mode: 'safe' }),
      ],
    });
    const history = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    expect(invoke(history, 'W1', 'acquire').detail, info).toContain('lock(), fairLockWaitTimeout 400 ms');
    // W1's deadline: its enqueue (50 ms) + A's remaining lease (~350 ms) + 400 ms, not + its 5 s wait.
    const w2 = done(history, 'W2', 'acquire');
    expect(w2.phase, info).toBe('ok');
    expect(w2.t, info).toBeGreaterThanOrEqual(780);
    expect(w2.t, info).toBeLessThan(1400);
    // Nobody took it in between: the dead head kept its place until its deadline.
    expect(servers(history).filter((e) => e.t > 250 && e.t < 750).every((e) => e.holders.length === 0), info).toBe(true);
  });

  it('fair-wait-timeout and renew-readers refuse a lock of another kind', async () => {
    const fair = scenario({ clients: ['A'], steps: [acquire('A', 0, { leaseMs: 300, fairWaitTimeoutMs: 100 })] });
    await expect(runVariant(fair, 'unsafe', { sandbox: fx.sandbox })).rejects.toThrow(UsageError);
    const readers = scenario({ clients: ['A'], steps: [acquire('A', 0, { leaseMs: 300, renewReaders: 'all' })] });
    await expect(runVariant(readers, 'unsafe', { sandbox: fx.sandbox })).rejects.toThrow(/renew-readers goes with a read lock/);
  });

  it('writer-preference: a reader waits while a writer waits, a reader already holding does not, and a crashed writer stops blocking when its wait ends', async () => {
    const clients = [
      { name: 'R1', kind: 'read' as const, stopOnLost: false },
      { name: 'R2', kind: 'read' as const, stopOnLost: false },
      { name: 'W', kind: 'write' as const, stopOnLost: false },
    ];
    const s = scenario({
      clients,
      lock: { kind: 'read', key: 'catalog' },
      variants: [
        { name: 'prefer', description: 'writer preference', expect: [] },
        { name: 'plain', description: "Redisson's lock", expect: [] },
        { name: 'dead-writer', description: 'the waiting writer crashes', expect: [] },
      ],
      steps: [
        acquire('R1', 0, { leaseMs: 2000, writerPreference: true }),
        acquire('W', 100, { leaseMs: 1000, waitMs: 600, writerPreference: true }),
        // R1 reads again while W waits: it already holds a read, so it must not wait for W.
        acquire('R1', 200, { leaseMs: 2000, writerPreference: true }),
        acquire('R2', 250, { leaseMs: 1000, waitMs: 2000, writerPreference: true, only: ['prefer', 'dead-writer'] }),
        acquire('R2', 250, { leaseMs: 1000, waitMs: 2000, only: ['plain'] }),
        step('W', 300, { do: 'crash' }, ['dead-writer']),
        step('R1', 400, { do: 'release', mode: 'safe' }),
        step('R1', 410, { do: 'release', mode: 'safe' }),
        step('W', 500, { do: 'release', mode: 'safe' }, ['prefer', 'plain']),
        step('R2', 1200, { do: 'release', mode: 'safe' }),
      ],
    });
    const prefer = await runOnTime(s, 'prefer', { sandbox: fx.sandbox });
    if (!prefer) return;
    let info = dump(prefer);
    expect(done(prefer, 'R1', 'acquire', 1), info).toMatchObject({ phase: 'ok', detail: 'hold count 2' });
    expect(done(prefer, 'R1', 'release', 0), info).toMatchObject({ phase: 'ok', detail: 'hold count decremented, still held' });
    const w = done(prefer, 'W', 'acquire');
    const r2 = done(prefer, 'R2', 'acquire');
    expect(w.phase, info).toBe('ok');
    expect(w.t, info).toBeGreaterThanOrEqual(400);
    expect(r2.phase, info).toBe('ok');
    expect(r2.t, info).toBeGreaterThanOrEqual(495);

    const plain = await runOnTime(s, 'plain', { sandbox: fx.sandbox });

    if (!plain) return;
    info = dump(plain);
    // Redisson's read acquire joins the read mode at once, while W is still waiting: R2 gets in
    // before W (order, not a time bound: a busy machine made a 350 ms bound miss by 0.6 ms).
    expect(done(plain, 'R2', 'acquire').phase, info).toBe('ok');
    expect(done(plain, 'R2', 'acquire').t, info).toBeLessThan(done(plain, 'W', 'acquire').t);
    expect(done(plain, 'R1', 'release', 1), info).toMatchObject({ phase: 'ok', detail: 'released; other readers still hold the lock' });

    const dead = await runOnTime(s, 'dead-writer', { sandbox: fx.sandbox });

    if (!dead) return;
    info = dump(dead);
    // W registered until its 600 ms wait would have ended (~700 ms); R2 gets in then, not never.
    const late = done(dead, 'R2', 'acquire');
    expect(late.phase, info).toBe('ok');
    expect(late.t, info).toBeGreaterThanOrEqual(650);
    expect(late.t, info).toBeLessThan(1100);
  });

  it("renew-readers: all keeps a crashed reader's timeout key alive through another reader's watchdog", async () => {
    const readers = [
      { name: 'R1', kind: 'read' as const, stopOnLost: false },
      { name: 'R2', kind: 'read' as const, stopOnLost: false },
    ];
    const s = scenario({
      clients: readers,
      lock: { kind: 'read', key: 'inventory' },
      variants: [
        { name: 'all', description: 'Redisson <= 4.3', expect: [] },
        { name: 'own', description: 'Redisson >= 4.4.0', expect: [] },
      ],
      settleMs: 0,
      steps: [
        acquire('R1', 0, { watchdogLeaseMs: 300, renewReaders: 'all', only: ['all'] }),
        acquire('R1', 0, { watchdogLeaseMs: 300, only: ['own'] }),
        acquire('R2', 20, { watchdogLeaseMs: 300, renewReaders: 'all', only: ['all'] }),
        acquire('R2', 20, { watchdogLeaseMs: 300, only: ['own'] }),
        step('R1', 50, { do: 'crash' }),
        step('R2', 800, { do: 'release', mode: 'safe' }),
      ],
    });
    const node = fx.client(fx.sandbox.nodes[0]!.port);
    // R1 is the first client: thread 1 in its holder `<uuid>:1`.
    const r1Keys = async (): Promise<string[]> => (await node.keys('{inventory}:*:rwlock_timeout:*')).filter((k) => k.includes(':1:rwlock_timeout:'));

    const all = await runOnTime(s, 'all', { sandbox: fx.sandbox });

    if (!all) return;
    let info = dump(all);
    expect(invoke(all, 'R2', 'acquire').detail, info).toContain('renewals extend every reader');
    // At R2's release (800 ms, long after R1's 300 ms lease) the lock still lists the dead R1.
    expect(done(all, 'R2', 'release'), info).toMatchObject({ phase: 'ok', detail: 'released; other readers still hold the lock' });
    expect(await r1Keys()).toHaveLength(1);
    expect(await node.hexists('inventory', 'mode')).toBe(1);

    const own = await runOnTime(s, 'own', { sandbox: fx.sandbox });

    if (!own) return;
    info = dump(own);
    expect(done(own, 'R2', 'release'), info).toMatchObject({ phase: 'ok' });
    expect(done(own, 'R2', 'release').detail, info).toBeUndefined();
    expect(await r1Keys()).toEqual([]);
    expect(await node.exists('inventory')).toBe(0);
  });
});
