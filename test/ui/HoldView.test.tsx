import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { HoldEvent } from '../../src/core/hold-events.js';
import { displayWidth } from '../../src/core/text-layout.js';
import { HoldApp } from '../../src/ui/HoldApp.js';
import { HoldView } from '../../src/ui/HoldView.js';
import { createHoldStore } from '../../src/ui/hold-store.js';

const OWNER = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const TICK_MS = 5;

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

/** Mounts the live view on a fake event stream and a clock the test moves. */
function mount(kind = 'reentrant') {
  const store = createHoldStore({ key: 'orders', kind, owner: OWNER, target: '127.0.0.1:16501', mode: 'watchdog' });
  let now = T0;
  const view = render(<HoldApp store={store} clock={() => now} tickMs={TICK_MS} />);
  unmount = view.unmount;
  const frame = () => view.lastFrame() ?? '';
  // Ink throttles repaints (30 fps) and a loaded machine delays timers further: wait for the frame
  // to change and then hold still, instead of sleeping a fixed time. A frame that must not
  // change (a frozen view) simply returns after the cap.
  const settle = async (): Promise<string> => {
    const before = frame();
    const until = Date.now() + 1000;
    let last = before;
    let stableSince = Date.now();
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, TICK_MS));
      const current = frame();
      if (current !== last) [last, stableSince] = [current, Date.now()];
      if (last !== before && Date.now() - stableSince >= 60) break;
    }
    return last;
  };
  return {
    store,
    /** Emits events (their `at` relative to T0) and returns the frame after React has committed. */
    async send(...events: HoldEvent[]) {
      for (const e of events) store.emit({ ...e, at: T0 + e.at });
      return settle();
    },
    async at(ms: number) {
      now = T0 + ms;
      return settle();
    },
  };
}

const acquired = (over: Partial<Extract<HoldEvent, { type: 'acquired' }>> = {}): HoldEvent => ({
  type: 'acquired',
  at: 0,
  mode: 'watchdog',
  leaseMs: 30_000,
  renewEveryMs: 10_000,
  count: 1,
  ...over,
});

const bar = (frame: string) => /lease\s+(█*)(░*)/.exec(frame);

describe('HoldView', () => {
  it('says it is acquiring before the lock is taken', async () => {
    const v = mount();
    const frame = await v.send({ type: 'acquiring', at: 0, waitMs: 10_000 });
    expect(frame).toMatch(/^orders\s+reentrant\s+on 127\.0\.0\.1:16501\s+● acquiring/);
    expect(frame).toMatch(new RegExp(`^as\\s+${OWNER}$`, 'm'));
    expect(frame).toContain('waiting for the lock… (Ctrl-C gives up)');
    expect(frame).not.toContain('lease');
    expect(frame).not.toContain('renewals'); // nothing to renew yet (it said "every 0 ms")
  });

  it('while waiting: who holds it, the lease it has left, our place in a fair queue, and the time waited, live', async () => {
    const v = mount('fair');
    const other = '11111111-2222-4333-8444-555555555555:7';
    await v.send({ type: 'acquiring', at: 0, waitMs: 10_000 }, { type: 'waiting', at: 1000, holders: [{ owner: other, count: 1 }], ttlMs: 4000, queuePosition: 1 });
    // The clock's line, then the holders (they change only when an attempt is refused).
    let frame = await v.at(1000);
    expect(frame).toMatch(new RegExp(`^waiting \\(Ctrl-C gives up\\): waited 1\\.0 s · 2nd in the queue · lease left 4\\.0 s\nheld by ${other}$`, 'm'));
    frame = await v.at(3500);
    expect(frame).toMatch(new RegExp(`^waiting \\(Ctrl-C gives up\\): waited 3\\.5 s · 2nd in the queue · lease left 1\\.5 s\nheld by ${other}$`, 'm'));
    frame = await v.send(acquired({ at: 4000 }));
    expect(frame).toContain('● held');
    expect(frame).not.toContain('waited');
  });

  it('counts the lease down between renewals and shows the renewal count', async () => {
    const v = mount();
    await v.send({ type: 'acquiring', at: 0, waitMs: 0 }, acquired());
    let frame = await v.at(12_000);
    expect(frame).toContain('● held');
    expect(frame).toMatch(new RegExp(`^holder\\s+${OWNER}$`, 'm'));
    expect(frame).toContain('18.0 s left of 30.0 s');
    expect(frame).toMatch(/18\.0 s left of 30\.0 s\s+watchdog\n/);
    expect(frame).toMatch(/renewals\s+0 \(every 10\.0 s\)\n/);
    expect(bar(frame)?.[1]).toHaveLength(14); // 18/30 of a 24-cell bar
    expect(bar(frame)?.[2]).toHaveLength(10);

    frame = await v.send({ type: 'renewing', at: 10_000 });
    expect(frame).toContain('● renewing');
    frame = await v.send({ type: 'renewed', at: 10_000, ttlMs: 30_000, renewals: 1 });
    expect(frame).toContain('● held');
    expect(frame).toContain('28.0 s left of 30.0 s');
    expect(frame).toMatch(/renewals\s+1 \(every 10\.0 s\), last 2\.0 s ago/);
    expect(frame).toContain('Ctrl-C releases the lock and exits');
  });

  it('shows reconnecting and retrying, and recovers when the connection is back', async () => {
    const v = mount();
    await v.send(acquired());
    let frame = await v.send({ type: 'reconnecting', at: 1000, target: '127.0.0.1:16501' });
    expect(frame).toContain('● reconnecting');
    expect(frame).toContain('connection to 127.0.0.1:16501 lost: reconnecting… the lease keeps counting down');
    frame = await v.send({ type: 'reconnected', at: 1500, target: '127.0.0.1:16501' });
    expect(frame).toContain('● held');
    frame = await v.send({ type: 'retrying', at: 2000, error: 'READONLY You can\'t write against a read only replica', retryInMs: 400 });
    expect(await v.at(2100)).toContain("retrying in 300 ms: READONLY You can't write against a read only replica");
    frame = await v.send({ type: 'renewed', at: 2500, ttlMs: 30_000, renewals: 1 });
    expect(frame).not.toContain('retrying');
  });

  it('says when a renewal gets no answer, and that the lease keeps counting down', async () => {
    const v = mount();
    await v.send(acquired(), { type: 'renewing', at: 10_000 });
    expect(await v.at(10_200)).not.toContain('no answer');
    const frame = await v.at(11_400);
    expect(frame).toContain('● renewing');
    expect(frame).toContain('renewal sent 1.4 s ago, no answer yet; the lease keeps counting down');
    expect(frame).toContain('18.6 s left of 30.0 s');
    expect(await v.send({ type: 'lost', at: 30_000, reason: 'lease-ran-out' })).toContain(
      'lost: no renewal reached Redis before the lease ran out',
    );
  });

  it('shows a fixed lease without renewals, and the fencing token', async () => {
    const v = mount('fenced');
    await v.send(acquired({ mode: 'fixed', leaseMs: 5000, renewEveryMs: undefined, token: 42 }));
    const frame = await v.at(1000);
    expect(frame).toContain('4.0 s left of 5.0 s');
    expect(frame).toContain('fixed, not renewed');
    expect(frame).not.toContain('renewals');
    expect(frame).toMatch(/token\s+42/);
    expect(await v.send({ type: 'expired', at: 5002, heldMs: 5002 })).toContain('lease ran out after 5.0 s: the lock is free');
  });

  it('scrolls the command output above the view and shows its pid and status', async () => {
    const v = mount();
    await v.send(acquired(), { type: 'child-started', at: 5, pid: 4242, command: ['./report.sh', '--full'] });
    v.store.write('stdout', 'line one\nline t');
    v.store.write('stdout', 'wo\n');
    let frame = await v.at(100);
    expect(frame).toMatch(/^line one\nline two\n/);
    expect(frame).toMatch(/command\s+pid 4242 running\s+\.\/report\.sh --full/);
    frame = await v.send({ type: 'child-exited', at: 200, pid: 4242, code: 3, signal: null });
    expect(frame).toContain('pid 4242 exited 3');
  });

  it('keeps a long command on one line, quoted the way a shell would read it', async () => {
    const v = mount();
    const long = ['sh', '-c', `echo start; ${'sleep 1; '.repeat(20)}echo done`];
    const frame = await v.send(acquired(), { type: 'child-started', at: 5, pid: 7, command: long });
    const line = frame.split('\n').find((l) => l.startsWith('command'));
    expect(line).toMatch(/^command\s+pid 7 running\s+sh -c "echo start; sleep 1; .*…$/);
    expect(frame).not.toMatch(/^\s+echo done/m);
  });

  it('turns red and freezes the countdown when the lock is lost', async () => {
    const v = mount();
    await v.send(acquired(), { type: 'child-started', at: 5, pid: 4242, command: ['worker'] });
    let frame = await v.send(
      { type: 'lost', at: 3000, reason: 'gone', holders: [{ owner: 'someone-else', count: 1 }] },
      { type: 'child-stopping', at: 3001, pid: 4242, signal: 'SIGTERM', why: 'lock lost' },
    );
    expect(frame).toContain('● LOST');
    expect(frame).toContain('lost: it was deleted or taken over (force-unlocked?); someone-else holds it now');
    expect(frame).toContain('pid 4242 stopping');
    frame = await v.send({ type: 'child-exited', at: 3100, pid: 4242, code: null, signal: 'SIGTERM' });
    expect(frame).toContain('pid 4242 killed by SIGTERM');
    // After the end the view no longer counts: later ticks show the same frame.
    expect(await v.at(20_000)).toBe(frame);
  });

  it('ends with "released" and how long the lock was held', async () => {
    const v = mount();
    await v.send(acquired());
    const frame = await v.send({ type: 'released', at: 12_300, reason: 'interrupted', outcome: 'released', heldMs: 12_300 });
    expect(frame).toContain('● released');
    expect(frame).toContain('released after 12.3 s (interrupted)');
  });

  it('names the holder when the lock was not acquired', async () => {
    const v = mount();
    const frame = await v.send({ type: 'not-acquired', at: 10, ttlMs: 4200, holders: [{ owner: 'other:1', count: 2 }] });
    expect(frame).toContain('● not acquired');
    expect(frame).toMatch(/^as\s+6f1c2b8e-/m); // our identity, not the holder
    expect(frame).toContain('held by other:1 (2 holds) for another 4.2 s');
  });

  it('keeps every row that moves with the clock to one row on a narrow terminal', () => {
    // A row that wrapped in some repaints and not others (a countdown reading "1 m 59 s", then
    // "59.9 s") changed the frame's height, and a terminal kept a row of an old frame.
    const store = createHoldStore({ key: 'orders', kind: 'redlock', owner: OWNER, target: 'redlock 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003' });
    store.emit({ ...acquired({ mode: 'fixed', leaseMs: 120_000 }), at: T0 });
    const draw = (columns: number) => {
      const view = render(<HoldView state={store.getSnapshot().state} now={T0 + 1000} columns={columns} />);
      const frame = view.lastFrame() ?? '';
      view.unmount();
      return frame.split('\n');
    };
    for (const columns of [80, 100]) {
      const [header, holder, lease] = draw(columns);
      expect(header).toMatch(/^orders {2}redlock {2}on redlock 127\.0\.0\.1.*7003 {2}● held$/); // 80 wide: it just fits
      expect(holder).toMatch(/^holder/);
      expect(lease).toMatch(/^lease +█+ +1 m 59 s left of 2 m 00 s/);
      for (const line of draw(columns)) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    }
    // "● reconnecting" is 8 columns wider than "● held": the target gives way, the row stays one.
    store.emit({ type: 'reconnecting', at: T0 + 1000, target: '127.0.0.1:7001' });
    expect(draw(80)[0]).toMatch(/^orders {2}redlock {2}on redlock 127\.0\.0\.1.*… {2}● reconnecting$/);
  });
});

