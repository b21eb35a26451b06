import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import type { LsAction } from '../../src/ui/LsApp.js';
import { LsApp } from '../../src/ui/LsApp.js';
import { createLsStore } from '../../src/ui/ls-store.js';
import { formatTable, lsRow } from '../../src/ui/ls-table.js';
import { expectFits, framesAtWidth } from './narrow.js';

const A = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f';
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const TICK_MS = 5;

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const lock = (key: string, ttlMs: number, queued = 0): LockView => ({
  key,
  kind: queued > 0 ? 'fair' : 'reentrant',
  type: 'hash',
  ttlMs,
  holders: [{ owner: `${A}:1`, client: A, thread: '1', count: 1 }],
  ...(queued > 0 ? { queue: Array.from({ length: queued }, (_, i) => ({ owner: `${A}:${i + 2}`, position: i, deadlineInMs: 60_000 })) } : {}),
  waiters: 0,
  warnings: ttlMs === -1 ? [{ code: 'no-ttl', severity: 'error', message: 'no TTL' }] : [],
  readAt: T0,
});

/** `columns` undefined: the view follows the terminal's width, as ls --watch does. */
function mount(rows = 24, columns: number | undefined = 100) {
  const store = createLsStore({ pattern: 'orders:*', target: '127.0.0.1:16379', intervalMs: 2000 });
  const actions: LsAction[] = [];
  let now = T0;
  const view = render(<LsApp store={store} {...(columns !== undefined ? { columns } : {})} rows={rows} clock={() => now} tickMs={TICK_MS} onAction={(a) => actions.push(a)} />);
  unmount = view.unmount;
  const frame = () => view.lastFrame() ?? '';
  // Ink repaints on its own schedule: wait (bounded) for the frame to show what the test expects.
  const until = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 2000;
    while (!pattern.test(frame()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, TICK_MS));
    return frame();
  };
  return {
    view,
    store,
    actions,
    until,
    press: (key: string) => view.stdin.write(key),
    scan(atMs: number, views: LockView[], scanned = 1000) {
      now = T0 + atMs;
      store.poll({ type: 'ok', at: T0 + atMs, tookMs: 30, tick: 1, snapshot: { views, scanned, limited: false } });
    },
    at(atMs: number) {
      now = T0 + atMs;
    },
  };
}

const keysIn = (frame: string): string[] => frame.split('\n').slice(1).map((l) => l.split(/\s+/)[0]!).filter((k) => /^orders/.test(k));

describe('ls --watch view', () => {
  it('says it is scanning until the first scan lands', async () => {
    const ui = mount();
    expect(await ui.until(/scanning/)).toContain('scanning 127.0.0.1:16379 for orders:*…');
  });

  it('a table sorted by TTL (no TTL first), and the scan it came from', async () => {
    const ui = mount();
    ui.scan(0, [lock('orders:a', 5000), lock('orders:b', -1), lock('orders:c', 20_000, 3)], 1234);
    const frame = await ui.until(/orders:c/);
    expect(frame.split('\n')[0]).toMatch(/^KEY\s+KIND\s+HOLDER\s+TTL\s+WAITING\s+WARN$/);
    expect(keysIn(frame)).toEqual(['orders:b', 'orders:c', 'orders:a']);
    expect(frame).toMatch(/orders:c\s+fair\s+6f1c2b8e…:1\s+20\.0 s\s+3 queued\s+-/);
    expect(frame).toMatch(/orders:b\s+reentrant\s+6f1c2b8e…:1\s+no TTL\s+-\s+1/);
    expect(frame).toContain('● 127.0.0.1:16379 orders:*: 3 locks in 1,234 keys · every 2.0 s, read 0 ms ago · by TTL');
    expect(frame).toContain('sort: t TTL · w waiting · k key   p pause · q quit');
  });

  it('TTLs count down between scans', async () => {
    const ui = mount();
    ui.scan(0, [lock('orders:a', 5000)]);
    await ui.until(/5\.0 s/);
    ui.at(1500);
    expect(await ui.until(/3\.5 s/)).toMatch(/orders:a\s+reentrant\s+\S+\s+3\.5 s/);
  });

  it('w sorts by waiting, k by key; p and q go to the command', async () => {
    const ui = mount();
    ui.scan(0, [lock('orders:b', 5000, 1), lock('orders:a', 9000), lock('orders:c', 1000, 4)]);
    await ui.until(/orders:c/);
    ui.press('w');
    expect(keysIn(await ui.until(/by waiting/))).toEqual(['orders:c', 'orders:b', 'orders:a']);
    ui.press('k');
    expect(keysIn(await ui.until(/by key/))).toEqual(['orders:a', 'orders:b', 'orders:c']);
    ui.press('p');
    ui.press('q');
    await ui.until(/by key/);
    expect(ui.actions).toEqual(['toggle-pause', 'quit']);
  });

  it('says paused and retrying, and keeps the last table', async () => {
    const ui = mount();
    ui.scan(0, [lock('orders:a', 5000)]);
    await ui.until(/orders:a/);
    ui.store.poll({ type: 'paused', at: T0 + 100 });
    expect(await ui.until(/paused/)).toMatch(/❚❚ paused: nothing is scanned, TTLs are frozen/);
    ui.store.poll({ type: 'resumed', at: T0 + 200 });
    ui.at(300);
    ui.store.poll({ type: 'retrying', at: T0 + 300, error: 'connect ECONNREFUSED', retryInMs: 4000, failures: 3 });
    const frame = await ui.until(/retrying in 4\.0 s/);
    expect(frame).toContain('connect ECONNREFUSED: retrying in 4.0 s');
    expect(frame).toContain('orders:a');
  });

  it('more locks than rows: the rest are counted, not drawn', async () => {
    const ui = mount(8);
    ui.scan(0, Array.from({ length: 12 }, (_, i) => lock(`orders:${String(i).padStart(2, '0')}`, 1000 * (i + 1))));
    const frame = await ui.until(/more/);
    expect(keysIn(frame)).toHaveLength(3);
    expect(frame).toContain('… 9 more (sorted by TTL)');
  });

  it('a scan with no locks says so', async () => {
    const ui = mount();
    ui.scan(0, []);
    expect(await ui.until(/no locks/)).toContain('no locks match orders:*');
  });
});

describe('ls table on a narrow terminal', () => {
  it('every line fits; keys lose their middle, holders their end; piped, nothing is cut', () => {
    const long = { ...lock('orders:a very long name of a nightly reconciliation job:lock', 5000), holders: [{ owner: 'x'.repeat(40), count: 1 }] };
    const rows = [lsRow(long), lsRow(lock('orders:b', 1000))];
    const lines = formatTable(rows, 64);
    expect(lines.every((l) => [...l].length <= 64)).toBe(true);
    expect(lines[1]).toMatch(/^orders…b:lock\s+reentrant\s+x{15}…\s+5\.0 s/);
    expect(formatTable(rows)[1]).toContain('orders:a very long name of a nightly reconciliation job:lock');
  });
});

describe('ls --watch narrowed to 40 columns', () => {
  it('every frame after the resize fits: the table, a long key, the status row', async () => {
    const ui = mount(24, undefined);
    ui.scan(0, [lock('orders:2024:eu-west-1:customer-4242:invoice-lock', 29_000, 2), lock('orders:b', -1)]);
    await ui.until(/invoice/);
    expectFits(await framesAtWidth(ui.view, 40, /orders:b/), 40);
  });
});
