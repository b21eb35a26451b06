// The REPL session's state and its reducer, without Redis: what the clients hold follows the
// commands' typed outcomes, a background hold follows its events, sandboxes attach and go.
import { describe, expect, it } from 'vitest';
import type { HoldEvent } from '../../../src/core/hold-events.js';
import type { LockView } from '../../../src/core/lock-view.js';
import type { CommandOutcome } from '../../../src/core/outcomes.js';
import { heldElsewhere, kindOf, locksHere, panelKeys } from '../../../src/core/repl/selectors.js';
import {
  initialReplState,
  replReducer,
  type ClientState,
  type ReplAction,
  type ReplState,
} from '../../../src/core/repl/state.js';

interface Target {
  readonly label: string;
}

const A: ClientState = {
  name: 'A',
  identity: { client: 'aaaaaaaa-0000-4000-8000-000000000001', thread: '1' },
  owners: ['aaaaaaaa-0000-4000-8000-000000000001:1', 'aaaaaaaa000040008000000000000001'],
};
const B: ClientState = {
  name: 'B',
  identity: { client: 'bbbbbbbb-0000-4000-8000-000000000002', thread: '1' },
  owners: ['bbbbbbbb-0000-4000-8000-000000000002:1', 'bbbbbbbb000040008000000000000002'],
};
const HOME = { target: { label: '127.0.0.1:6379' }, names: ['127.0.0.1:6379'] };
const SANDBOX = { target: { label: 'sandbox:single' }, names: ['127.0.0.1:7001'] };

const start = (): ReplState<Target> => initialReplState<Target>({ clients: [A, B], target: HOME, intervalMs: 1000 });
const run = (state: ReplState<Target>, ...actions: ReplAction<Target>[]): ReplState<Target> =>
  actions.reduce(replReducer<Target, unknown>, state);
const outcome = (client: string, o: CommandOutcome, jobId?: number): ReplAction<Target> => ({
  type: 'outcome',
  client,
  jobId,
  outcome: o,
});
type Outcome<K extends CommandOutcome['type']> = Extract<CommandOutcome, { type: K }>;
const acquired = (key: string, owner: string, target = '127.0.0.1:6379', at = 1000): Outcome<'lock-acquired'> => ({
  type: 'lock-acquired',
  key,
  kind: 'reentrant',
  owner,
  target,
  leaseMs: 30_000,
  at,
});
const holdEvent = (event: HoldEvent): Outcome<'hold-event'> => ({
  type: 'hold-event',
  key: 'k',
  kind: 'reentrant',
  owner: B.owners[0]!,
  target: '127.0.0.1:6379',
  event,
});

describe('replReducer: locks taken by acquire', () => {
  it('follows acquire, renew and release of a client from their outcomes', () => {
    let s = run(start(), outcome('A', acquired('orders', A.owners[0]!)));
    expect(locksHere(s).held).toEqual([
      expect.objectContaining({
        client: 'A',
        key: 'orders',
        via: 'acquire',
        leaseMs: 30_000,
        since: 1000,
        where: '127.0.0.1:6379',
      }),
    ]);
    s = run(
      s,
      outcome('A', {
        type: 'lock-renewed',
        key: 'orders',
        kind: 'reentrant',
        owner: A.owners[0]!,
        target: '127.0.0.1:6379',
        leaseMs: 5000,
        at: 2000,
      }),
    );
    expect(s.acquired).toEqual([expect.objectContaining({ key: 'orders', leaseMs: 5000, since: 2000 })]);
    // One re-entrant hold of two released: still held.
    const partly: CommandOutcome = {
      type: 'lock-released',
      key: 'orders',
      kind: 'reentrant',
      owner: A.owners[0]!,
      target: '127.0.0.1:6379',
      gone: false,
      at: 3000,
    };
    expect(run(s, outcome('A', partly)).acquired).toHaveLength(1);
    expect(run(s, outcome('A', { ...partly, gone: true })).acquired).toEqual([]);
  });

  it("keeps only locks taken under the client's own owner id (a token lock's too), not one taken with --owner", () => {
    const s = run(
      start(),
      outcome('A', acquired('mine', A.owners[0]!)),
      outcome('A', { ...acquired('token', A.owners[1]!), kind: 'token' }),
      outcome('A', acquired('foreign', 'cccccccc-0000-4000-8000-000000000003:1')),
    );
    expect(s.acquired.map((l) => l.key)).toEqual(['mine', 'token']);
  });

  it('a force-unlock drops the key on that target whoever held it, and nothing elsewhere', () => {
    const s = run(
      start(),
      outcome('A', acquired('k', A.owners[0]!)),
      outcome('B', acquired('k', B.owners[0]!, '127.0.0.1:7001')),
      outcome('A', { type: 'lock-force-unlocked', key: 'k', kind: 'reentrant', target: '127.0.0.1:6379', at: 5000 }),
    );
    expect(s.acquired.map((l) => `${l.client}@${l.target}`)).toEqual(['B@127.0.0.1:7001']);
  });

  it('names locks on other targets by where they live and does not read them from this one', () => {
    const s = run(
      start(),
      { type: 'retargeted', to: SANDBOX },
      outcome('A', acquired('cart', A.owners[0]!, '127.0.0.1:7001')),
      { type: 'retargeted', to: HOME },
    );
    expect(locksHere(s).held).toEqual([]);
    expect(panelKeys(s)).toEqual([]);
    expect(heldElsewhere(s)).toEqual([expect.objectContaining({ key: 'cart', where: 'sandbox:single' })]);
  });

  it('a read sent after the lock was taken that does not show it means it is gone', () => {
    const s = run(start(), outcome('A', acquired('k', A.owners[0]!, '127.0.0.1:6379', 1000)));
    const missing = { key: 'k', kind: 'missing', holders: [], ttlMs: -2, warnings: [] } as unknown as LockView;
    const before = run(s, { type: 'polled', poll: { type: 'ok', at: 500, tookMs: 1, tick: 1, snapshot: [missing] } });
    expect(locksHere(before).held).toHaveLength(1);
    const after = run(s, { type: 'polled', poll: { type: 'ok', at: 1500, tookMs: 1, tick: 1, snapshot: [missing] } });
    expect(locksHere(after).held).toEqual([]);
  });
});

describe('replReducer: a background hold', () => {
  const withJob = (): ReplState<Target> =>
    run(start(), {
      type: 'job-started',
      job: { id: 1, client: 'B', line: 'as B hold k --wait 5s', since: 0, hold: { key: 'k', rawJson: false } },
    });

  it('waits, holds with its lease and counts renewals, then lets go, from its events alone', () => {
    let s = run(withJob(), outcome('B', holdEvent({ type: 'acquiring', at: 100, waitMs: 5000 }), 1));
    expect(locksHere(s).waiting).toEqual([{ client: 'B', key: 'k', where: '127.0.0.1:6379', jobId: 1, untilAt: 5100 }]);
    expect(kindOf(s, 'k')).toBeUndefined();
    s = run(
      s,
      outcome(
        'B',
        holdEvent({ type: 'acquired', at: 200, mode: 'watchdog', leaseMs: 30_000, renewEveryMs: 10_000, count: 1 }),
        1,
      ),
    );
    expect(locksHere(s)).toEqual({
      held: [
        expect.objectContaining({
          client: 'B',
          key: 'k',
          via: 'hold',
          jobId: 1,
          mode: 'watchdog',
          leaseMs: 30_000,
          since: 200,
          renewals: 0,
        }),
      ],
      waiting: [],
    });
    expect(kindOf(s, 'k')).toBe('reentrant');
    s = run(
      s,
      outcome('B', holdEvent({ type: 'renewed', at: 10_200, ttlMs: 30_000, renewals: 1 }), 1),
      outcome('B', holdEvent({ type: 'renewed', at: 20_200, ttlMs: 30_000, renewals: 2 }), 1),
    );
    expect(locksHere(s).held[0]!.renewals).toBe(2);
    s = run(
      s,
      outcome(
        'B',
        holdEvent({ type: 'released', at: 25_000, reason: 'interrupted', outcome: 'released', heldMs: 24_800 }),
        1,
      ),
    );
    expect(locksHere(s)).toEqual({ held: [], waiting: [] });
  });

  it("ignores events that are not this job's (another key, no job)", () => {
    const other: CommandOutcome = {
      ...holdEvent({ type: 'acquired', at: 1, mode: 'fixed', leaseMs: 1000, count: 1 }),
      key: 'other',
    };
    const s = run(
      withJob(),
      outcome('B', other, 1),
      outcome('B', holdEvent({ type: 'acquired', at: 1, mode: 'fixed', leaseMs: 1000, count: 1 })),
    );
    expect(locksHere(s).held).toEqual([]);
  });
});

describe('replReducer: sandboxes and targets', () => {
  it('attaches a sandbox started here and, when it is down, sends commands back where they went', () => {
    let s = run(start(), outcome('A', { type: 'sandbox-up', name: 'chaos', topology: 'single' }), {
      type: 'sandbox-attached',
      name: 'chaos',
      to: SANDBOX,
    });
    expect(s.startedSandboxes).toEqual(['chaos']);
    expect(s.target).toBe(SANDBOX);
    expect(s.sandbox?.name).toBe('chaos');
    s = run(s, outcome('A', { type: 'sandbox-down', name: 'chaos' }));
    expect(s.startedSandboxes).toEqual([]);
    expect(s.sandbox).toBeUndefined();
    expect(s.target).toBe(HOME);
    expect(s.output.at(-1)?.text).toBe('sandbox "chaos" is down: commands go to 127.0.0.1:6379 again');
  });

  it('a sandbox that is not the attached one going down only leaves the started list', () => {
    const s = run(
      start(),
      outcome('A', { type: 'sandbox-up', name: 'x', topology: 'single' }),
      { type: 'sandbox-attached', name: 'y', to: SANDBOX },
      outcome('A', { type: 'sandbox-down', name: 'x' }),
    );
    expect(s.sandbox?.name).toBe('y');
    expect(s.startedSandboxes).toEqual([]);
  });

  it('retargeting forgets what the panel read elsewhere but keeps what is watched', () => {
    const view = { key: 'w', kind: 'missing', holders: [], ttlMs: -2, warnings: [] } as unknown as LockView;
    const s = run(
      start(),
      { type: 'watched', keys: ['w'], kind: 'token' },
      { type: 'polled', poll: { type: 'ok', at: 1, tookMs: 1, tick: 1, snapshot: [view] } },
      { type: 'retargeted', to: SANDBOX },
    );
    expect(s.panel.views).toEqual({});
    expect(s.panel.watched).toEqual(['w']);
    expect(kindOf(s, 'w')).toBe('token');
  });
});

describe('replReducer is pure', () => {
  it('never changes the state it is given', () => {
    const s0 = run(start(), outcome('A', acquired('k', A.owners[0]!)), { type: 'watched', keys: ['w'] });
    const copy = structuredClone(s0);
    run(
      s0,
      outcome('A', { type: 'lock-force-unlocked', key: 'k', kind: 'reentrant', target: '127.0.0.1:6379', at: 1 }),
      { type: 'unwatched', keys: [] },
      { type: 'print', text: 'x', tone: 'repl' },
      { type: 'ended' },
    );
    expect(s0).toEqual(copy);
  });

  it('names our clients after their owner ids in the lines the panel logs', () => {
    const held = (owner: string) =>
      ({
        key: 'k',
        kind: 'reentrant',
        holders: [{ owner, count: 1 }],
        ttlMs: 1000,
        warnings: [],
      }) as unknown as LockView;
    const s = run(
      start(),
      { type: 'polled', poll: { type: 'ok', at: 1, tookMs: 1, tick: 1, snapshot: [held(A.owners[0]!)] } },
      { type: 'polled', poll: { type: 'ok', at: 2, tookMs: 1, tick: 2, snapshot: [held(B.owners[0]!)] } },
    );
    expect(s.output.map((l) => l.text).join('\n')).toContain(`${B.owners[0]} (B)`);
  });
});

describe('replReducer: what the panel notices while a typed line runs', () => {
  const held = (owner: string, at: number): ReplAction<Target> => ({
    type: 'polled',
    poll: {
      type: 'ok',
      at,
      tookMs: 1,
      tick: at,
      snapshot: [
        {
          key: 'k',
          kind: 'reentrant',
          holders: [{ owner, count: 1 }],
          ttlMs: 1000,
          warnings: [],
        } as unknown as LockView,
      ],
    },
  });
  const print = (text: string): ReplAction<Target> => ({ type: 'print', text, tone: 'result' });
  const texts = (s: ReplState<Target>) => s.output.map((l) => l.text);

  it("follows the line's own output, however the read and the output interleave", () => {
    const base = run(start(), held(A.owners[0]!, 1));
    // The command's first line, a read that answers before its second, then the second.
    const s = run(
      base,
      { type: 'line-started' },
      print('acquired k'),
      held(B.owners[0]!, 2),
      { type: 'panel-connection', down: true },
      print('release it with: release k'),
    );
    expect(texts(s)).toEqual(['acquired k', 'release it with: release k']);
    const done = run(s, { type: 'line-done' });
    expect(texts(done)).toEqual([
      'acquired k',
      'release it with: release k',
      `k: released by ${A.owners[0]} (A)`,
      `k: acquired by ${B.owners[0]} (B)`,
      'panel: connection to 127.0.0.1:6379 lost, reconnecting',
    ]);
    // Between lines, the panel's lines are printed as they come.
    expect(texts(run(done, held(A.owners[0]!, 3))).slice(5)).toEqual([
      `k: released by ${B.owners[0]} (B)`,
      `k: acquired by ${A.owners[0]} (A)`,
    ]);
  });

  it('prints what it noticed when the session ends in the middle of a line', () => {
    const s = run(start(), held(A.owners[0]!, 1), { type: 'line-started' }, held(B.owners[0]!, 2), { type: 'ended' });
    expect(texts(s)).toContain(`k: acquired by ${B.owners[0]} (B)`);
  });
});
