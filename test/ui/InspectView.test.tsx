import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { HolderView, LockView, QueueEntryView, ReaderView } from '../../src/core/lock-view.js';
import type { InspectAction } from '../../src/ui/InspectApp.js';
import { AtTerminalEdge } from '../../src/ui/AtTerminalEdge.js';
import { InspectApp } from '../../src/ui/InspectApp.js';
import { createInspectStore } from '../../src/ui/inspect-store.js';
import { expectFits, framesAtWidth } from './narrow.js';

const A = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
const B = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:7';
const C = 'a0b1c2d3-0000-4000-8000-000000000003:12';
const T0 = new Date(2025, 0, 1, 12, 0, 0).getTime(); // local: the log prints local times
const TICK_MS = 5;

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const base = (key: string): LockView => ({ key, kind: 'missing', type: 'none', ttlMs: -2, holders: [], waiters: 0, warnings: [], readAt: T0 });
const holder = (owner: string, count = 1): HolderView => ({ owner, count });
const lock = (key: string, ttlMs: number, holders: HolderView[], extra: Partial<LockView> = {}): LockView => ({
  ...base(key),
  kind: 'reentrant',
  type: 'hash',
  ttlMs,
  holders,
  ...extra,
});

/** Mounts the view on a store the test feeds with poller states, and a clock the test moves. */
function mount(keys: string[] = ['orders']) {
  const store = createInspectStore({ keys, target: '127.0.0.1:16379', intervalMs: 1000 });
  const actions: InspectAction[] = [];
  let now = T0;
  // As mountLive mounts every live view: inside AtTerminalEdge.
  const view = render(
    <AtTerminalEdge>
      <InspectApp store={store} clock={() => now} tickMs={TICK_MS} onAction={(a) => actions.push(a)} />
    </AtTerminalEdge>,
  );
  unmount = view.unmount;
  const frame = () => view.lastFrame() ?? '';
  // Ink throttles repaints and a loaded machine delays timers: poll the frame until it shows what
  // the test expects (bounded), and let the assertion that follows report what it showed instead.
  const until = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 2000;
    while (!pattern.test(frame()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, TICK_MS));
    return frame();
  };
  /** The frame after `ms` of clock ticks, for views that must not change. */
  const still = async (ms: number): Promise<string> => {
    await new Promise((r) => setTimeout(r, ms));
    return frame();
  };
  let tick = 0;
  return {
    view,
    store,
    actions,
    stdin: view.stdin,
    until,
    still,
    /** A successful tick read at T0 + `atMs`; the clock moves there too. */
    read(atMs: number, ...views: LockView[]) {
      now = T0 + atMs;
      store.poll({ type: 'ok', at: T0 + atMs, tookMs: 2, tick: ++tick, snapshot: views.map((v) => ({ ...v, readAt: T0 + atMs })) });
    },
    at(atMs: number) {
      now = T0 + atMs;
    },
  };
}

const ttlBar = (frame: string, key = 'ttl') => new RegExp(`^${key}\\s+(█*)(░*) `, 'm').exec(frame);

describe('InspectView', () => {
  it('counts the TTL down between ticks from the last read', async () => {
    const v = mount();
    v.read(0, lock('orders', 30_000, [holder(A, 2)]));
    let frame = await v.until(/30\.0 s/);
    expect(frame).toMatch(/^orders\s+reentrant\s+held$/m);
    expect(frame).toMatch(new RegExp(`^holder\\s+${A}  2 holds$`, 'm'));
    v.at(12_000);
    frame = await v.until(/18\.0 s/);
    expect(frame).toMatch(/^ttl\s+█+░+ 18\.0 s$/m);
    expect(ttlBar(frame)?.[1]).toHaveLength(12); // 18/30 of a 20-cell bar
    // Twelve intervals without a read: the status says how old the picture is.
    expect(frame).toContain('● 127.0.0.1:16379 every 1.0 s · last read 12.0 s ago · p pause · q quit');
    // The next read replaces the estimate; a TTL back at the full lease is a renewal.
    v.read(13_000, lock('orders', 30_000, [holder(A, 2)]));
    frame = await v.until(/renewed/);
    expect(frame).toMatch(/^12:00:13 renewed: TTL back up to 30\.0 s$/m);
    expect(ttlBar(frame)?.[1]).toHaveLength(20);
  });

  it('draws the bar against the largest TTL seen, so a lock first seen half-way is not shown as full', async () => {
    const v = mount();
    v.read(0, lock('orders', 20_000, [holder(A)]));
    v.read(1000, lock('orders', 30_000, [holder(A)])); // renewed: now we know the lease is 30 s
    v.read(11_000, lock('orders', 20_000, [holder(A)]));
    const frame = await v.until(/ 20\.0 s\n/);
    expect(ttlBar(frame)?.[1]).toHaveLength(13); // 20/30, not a full bar
  });

  it('shows the fair queue in order with deadlines that count down and turn overdue', async () => {
    const v = mount();
    const queue: QueueEntryView[] = [
      { owner: B, position: 0, deadlineInMs: -1100 },
      { owner: C, position: 1, deadlineInMs: 4200, expectedWaitMs: 30_000 },
      { owner: 'no-score:1', position: 2, deadlineInMs: null },
    ];
    v.read(0, lock('orders', 25_000, [holder(A)], { kind: 'fair', queue, waiters: 2 }));
    let frame = await v.until(/queue/);
    expect(frame).toMatch(/^orders\s+fair\s+held\s+2 waiting for unlock$/m);
    // The one-shot table's headings, each above its column.
    const heading = /^queue\s+#\s+waiter\s+deadline\s+expected wait\s+listening$/m.exec(frame);
    expect(heading, frame).not.toBeNull();
    // The waiter column gives way to the fixed ones: a long owner is cut in the middle.
    expect(frame).toMatch(new RegExp(`^\\s+1\\.\\s+${B.slice(0, 8)}\\S*\\s+overdue 1\\.1 s\\s+\\?\\s+\\?$`, 'm'));
    expect(frame).toMatch(new RegExp(`^\\s+2\\.\\s+${C.slice(0, 8)}\\S*\\s+in 4\\.2 s\\s+30\\.0 s\\s+\\?$`, 'm'));
    expect(frame).toMatch(/^\s+3\.\s+no-score:1\s+none\s+\?\s+\?$/m);
    const lines = frame.split('\n');
    const head = lines.find((l) => l.startsWith('queue'))!;
    const second = lines.find((l) => l.includes('in 4.2 s'))!;
    expect(second.indexOf('in 4.2 s')).toBe(head.indexOf('deadline'));
    expect(second.indexOf('30.0 s')).toBe(head.indexOf('expected wait'));
    expect(frame.indexOf(B.slice(0, 8))).toBeLessThan(frame.indexOf(C.slice(0, 8)));
    v.at(5000);
    frame = await v.until(/overdue 6\.1 s/);
    expect(frame).toMatch(new RegExp(`${C.slice(0, 8)}\\S*\\s+overdue 800 ms`));
  });

  it('shows readers with hold counts and each timeout key counting down, zombies, orphans and warnings', async () => {
    const v = mount();
    const readers: ReaderView[] = [
      { owner: A, count: 2, zombie: false, timeoutKeys: [{ key: `{orders}:${A}:rwlock_timeout:1`, ttlMs: 30_000 }, { key: `{orders}:${A}:rwlock_timeout:2`, ttlMs: 12_000 }] },
      { owner: B, count: 1, zombie: true, timeoutKeys: [] },
    ];
    v.read(
      0,
      lock('orders', 30_000, [], {
        kind: 'rw',
        mode: 'read',
        readers,
        orphanTimeoutKeys: [{ key: `{orders}:${C}:rwlock_timeout:1`, ttlMs: 9000 }],
        warnings: [
          { code: 'zombie-reader', severity: 'warning', message: `reader ${B} is dead but still counted` },
          { code: 'orphan-timeout-key', severity: 'warning', message: `timeout key of ${C} without a reader field` },
        ],
      }),
    );
    v.at(2000);
    const frame = await v.until(/28\.0 s\n/);
    expect(frame).toMatch(/^orders\s+rw\s+read mode, 2 readers$/m);
    expect(frame).toMatch(new RegExp(`^readers\\s+${A}  2 holds$`, 'm'));
    expect(frame).toMatch(/^\s+rwlock_timeout:1\s+█+░* 28\.0 s$/m);
    expect(frame).toMatch(/^\s+rwlock_timeout:2\s+█+░+ 10\.0 s$/m);
    expect(frame).toMatch(new RegExp(`^\\s+${B}\\s+zombie: no timeout key left$`, 'm'));
    expect(frame).toMatch(new RegExp(`^orphans\\s+\\{orders\\}:${C}:rwlock_timeout:1$`, 'm'));
    expect(frame).toMatch(/no reader field for this key\s+█+░+ 7\.0 s/);
    expect(frame).toContain(`⚠ reader ${B} is dead but still counted`);
    expect(frame).toContain(`⚠ timeout key of ${C} without a reader field`);
  });

  it('says when a lock has no TTL, and shows fencing tokens and semaphore permits', async () => {
    const v = mount(['orders', 'fenced', 'permits']);
    v.read(
      0,
      lock('orders', -1, [holder(A)], { warnings: [{ code: 'no-ttl', severity: 'error', message: 'no TTL: will never expire' }] }),
      lock('fenced', 5000, [holder(B)], { kind: 'fenced', token: 42 }),
      lock('permits', -1, [], {
        kind: 'expirable-semaphore',
        type: 'string',
        available: 3,
        permits: [
          { id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9', expiresInMs: 4000, expired: false },
          { id: 'ffeeddccbbaa99887766554433221100', expiresInMs: -50, expired: true },
        ],
      }),
    );
    const frame = await v.until(/permits/);
    expect(frame).toMatch(/^ttl\s+none: never expires on its own$/m);
    expect(frame).toContain('⚠ no TTL: will never expire');
    expect(frame).toMatch(/^fenced\s+fenced\s+held$/m);
    expect(frame).toMatch(/^token\s+42$/m);
    expect(frame).toMatch(/^permits\s+3 available$/m);
    expect(frame).toMatch(/^acquired\s+0a1b2c3d4e5f60718293a4b5c6d7e8f9 {2}expires in 4\.0 s$/m);
    expect(frame).toMatch(/^\s+ffeeddccbbaa99887766554433221100 {2}expired$/m);
    // In the order asked for.
    expect(frame.indexOf('\norders')).toBeLessThan(frame.indexOf('\nfenced'));
  });

  it('logs the events between ticks above the view, naming the key when several are watched', async () => {
    const v = mount(['orders', 'reports']);
    v.read(0, lock('orders', 30_000, [holder(A)], { kind: 'fair', queue: [] }), base('reports'));
    v.read(
      1000,
      lock('orders', 29_000, [holder(A)], { kind: 'fair', queue: [{ owner: B, position: 0, deadlineInMs: 5000 }] }),
      lock('reports', 10_000, [holder(C)], { kind: 'token', type: 'string', library: 'node-redlock' }),
    );
    v.read(2000, lock('orders', 30_000, [holder(B)], { kind: 'fair', queue: [] }), base('reports'));
    const frame = await v.until(/released by a0b1/);
    const log = frame.split('\n').slice(0, 5);
    expect(log).toEqual([
      `12:00:01 orders ${B} joined the queue at position 1`,
      `12:00:01 reports acquired by ${C}`,
      `12:00:02 orders released by ${A}`,
      `12:00:02 orders acquired by ${B} from the queue`,
      `12:00:02 reports released by ${C}`,
    ]);
    expect(frame).toMatch(/^reports\s+free: the key does not exist$/m);
  });

  it('says paused and freezes the countdown; p, q and Ctrl-C reach the command', async () => {
    const v = mount();
    v.read(0, lock('orders', 30_000, [holder(A)]));
    await v.until(/30\.0 s/);
    v.stdin.write('p');
    v.stdin.write('q');
    v.stdin.write('\u0003');
    expect(v.actions).toEqual(['toggle-pause', 'quit', 'interrupt']);
    v.at(2000);
    v.store.poll({ type: 'paused', at: T0 + 2000 });
    let frame = await v.until(/paused/);
    expect(frame).toContain('paused at 12:00:02: not reading, countdowns frozen · p resumes · q quit');
    v.at(9000);
    frame = await v.still(100);
    expect(frame).toMatch(/^ttl\s+█+░+ 28\.0 s$/m);
    v.store.poll({ type: 'resumed', at: T0 + 9000 });
    frame = await v.until(/21\.0 s/);
    expect(frame).not.toContain('paused');
    v.read(9100, lock('orders', 20_900, [holder(A)]));
    frame = await v.until(/every 1\.0 s · p pause/);
    expect(frame).toContain('● 127.0.0.1:16379 every 1.0 s · p pause · q quit');
    v.store.end(T0 + 9200);
    v.at(15_000);
    frame = await v.until(/stopped/);
    expect(frame).toMatch(/^stopped: last read at 12:00:09$/m);
    expect(frame).toMatch(/^ttl\s+█+░+ 20\.8 s$/m); // frozen where it ended, not counting on
  });

  it('says retrying with a countdown, and reconnecting, logs the outage once and clears both when a read succeeds', async () => {
    const v = mount();
    v.read(0, lock('orders', 30_000, [holder(A)]));
    v.at(1000);
    v.store.poll({ type: 'retrying', at: T0 + 1000, error: 'NOPERM this user has no permissions to run the evalsha command', retryInMs: 4000, failures: 1 });
    let frame = await v.until(/retrying in 4\.0 s/);
    expect(frame).toMatch(/^retrying in 4\.0 s · last read 1\.0 s ago · q quit\nNOPERM this user has no permissions to run the evalsha command$/m);
    expect(frame).toMatch(/^12:00:01 read failed: NOPERM this user/m);
    v.at(2500);
    expect(await v.until(/retrying in 2\.5 s/)).toContain('retrying in 2.5 s · last read 2.5 s ago');
    v.store.connection({ type: 'reconnecting', at: T0 + 2500, target: '127.0.0.1:16379' });
    v.store.poll({ type: 'retrying', at: T0 + 2500, error: 'not connected to 127.0.0.1:16379', retryInMs: 2000, failures: 2 });
    frame = await v.until(/reconnecting to/);
    expect(frame).toContain('reconnecting to 127.0.0.1:16379… retrying in 2.0 s · last read 2.5 s ago · q quit');
    expect(frame).not.toContain('not connected'); // the status says it already
    v.store.connection({ type: 'reconnected', at: T0 + 5000, target: '127.0.0.1:16379' });
    // A server that restarted without its data: the lock is gone, which is no proof of a release.
    v.read(5000, base('orders'));
    frame = await v.until(/every 1\.0 s · p pause/);
    expect(frame).not.toMatch(/retrying|reconnecting to/);
    const log = frame.split('\n').slice(0, 5);
    expect(log).toEqual([
      '12:00:01 read failed: NOPERM this user has no permissions to run the evalsha command',
      '12:00:02 connection to 127.0.0.1:16379 lost',
      '12:00:05 reconnected to 127.0.0.1:16379',
      '12:00:05 reading again',
      `12:00:05 released by ${A} (while Redis was unreachable)`,
    ]);
    v.read(6000, lock('orders', 30_000, [holder(B)]));
    expect(await v.until(/acquired by/)).toContain(`12:00:06 acquired by ${B}\n`);
  });
});

describe('inspect --watch narrowed to 40 columns', () => {
  it('every frame after the resize fits: holders, the fair queue with its header, the status row', async () => {
    const ui = mount(['orders:2024:eu-west-1:customer-4242:invoice-lock']);
    const queue: QueueEntryView[] = [
      { owner: B, position: 0, deadlineInMs: 4000, expectedWaitMs: 1000 },
      { owner: C, position: 1, deadlineInMs: 119_000, expectedWaitMs: 89_000 },
    ];
    ui.read(0, lock('orders:2024:eu-west-1:customer-4242:invoice-lock', 29_000, [holder(A, 2)], { kind: 'fair', queue }));
    await ui.until(/queue/);
    const frames = await framesAtWidth(ui.view, 40, /queue/);
    expectFits(frames, 40);
    // The columns that do not fit give way whole, the rightmost first, instead of being cut at the
    // edge mid-word: the headings stay readable above their values.
    const rows = (await ui.until(/^queue +# +waiter +deadline$/m)).split('\n');
    expect(rows.find((r) => r.startsWith('queue'))).toMatch(/^queue +# +waiter +deadline$/);
    expect(rows.find((r) => r.includes(' 2. '))).toMatch(/^ +2\. +\S+ +in 1 m 5\d s$/);
    await framesAtWidth(ui.view, 80, /queue/);
    expect((await ui.until(/listening$/m)).split('\n').find((r) => r.startsWith('queue'))).toMatch(/^queue +# +waiter +deadline +expected wait +listening$/);
  });
});
