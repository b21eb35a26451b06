import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { displayWidth } from '../../src/core/text-layout.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeLines } from '../../src/core/trace/decoder.js';
import { traceLiveState } from '../../src/core/trace/live.js';
import type { MonitorLine } from '../../src/core/trace/monitor-line.js';
import { TraceSession } from '../../src/core/trace/session.js';
import { TraceApp } from '../../src/ui/TraceApp.js';
import { TraceView } from '../../src/ui/TraceView.js';

const T0 = 1_764_064_800_000;
const at = (ms: number, source: string, ...args: string[]): MonitorLine => ({ t: T0 + ms, db: 0, source, args });
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

/** worker-a's lease runs out while it is paused, worker-b takes the lock, worker-a's release is refused. */
function overlapSession(): TraceSession {
  const session = new TraceSession();
  session.push(
    decodeLines([
      at(0, '127.0.0.1:5001', 'client', 'setname', 'worker-a'),
      at(1, '127.0.0.1:5002', 'client', 'setname', 'worker-b'),
      at(100, '127.0.0.1:5001', 'SET', 'orders', 'tokA', 'NX', 'PX', '300'),
      at(700, '127.0.0.1:5002', 'SET', 'orders', 'tokB', 'NX', 'PX', '5000'),
      at(900, '127.0.0.1:5001', 'EVAL', RELEASE, '1', 'orders', 'tokA'),
      at(900, 'lua', 'get', 'orders'),
      at(950, '127.0.0.1:5003', 'SET', 'evil\x1b[2J', 'x', 'NX', 'PX', '100'),
    ]),
  );
  return session;
}

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

describe('TraceView', () => {
  it('lanes per client and lock, the findings, and the newest events; names from Redis escaped', () => {
    const state = traceLiveState(overlapSession(), 99);
    const view = render(<TraceView state={state} what="the server (127.0.0.1:6379)" lagMs={3} columns={100} />);
    unmount = view.unmount;
    const frame = view.lastFrame() ?? '';
    expect(frame).toMatch(/trace the server \(127\.0\.0\.1:6379\) · 8 events · lag 3 ms · 2 unsafe/); // 3 of them attempts
    expect(frame).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}orders {2}attempt {2}by tokB/m);
    expect(frame).toMatch(/^worker-a .*━.*L/m); // held, then lost
    expect(frame).toMatch(/^worker-b .*━/m);
    expect(frame).toMatch(/^orders +.*1.*2/m); // the server's holder: worker-a, then worker-b
    expect(frame).toMatch(/^! +.*!/m);
    expect(frame).toMatch(/! expired-while-held orders/);
    expect(frame).toMatch(/! overlap orders .*tokB \(worker-b@127\.0\.0\.1:5002\) acquired/);
    expect(frame).toContain('release REFUSED  by tokA');
    expect(frame).not.toContain('\x1b[2J');
    expect(frame).toContain('"evil\\x1b[2J"');
  });

  it('before any lock operation it says it is waiting; the app repaints from the session, with the source status', async () => {
    const session = new TraceSession();
    let status: string | undefined;
    const view = render(
      <TraceApp session={session} what="the server" stats={() => ({ lagMs: 0, status })} tickMs={20} />,
    );
    unmount = view.unmount;
    expect(view.lastFrame()).toContain('waiting for lock operations');
    session.push(overlapSession().recent());
    status = 'failover: now following 127.0.0.1:7002';
    // Repainted on the next tick (20 ms), however late a busy machine runs it.
    await vi.waitFor(() => expect(view.lastFrame()).toMatch(/2 unsafe/), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(view.lastFrame()).toContain('failover: now following 127.0.0.1:7002'), {
      timeout: 10_000,
      interval: 20,
    });
  });

  it('lane labels keep the end of every long name (one rule), and the lock with a finding stays in the chart', () => {
    const session = overlapSession();
    // After the overlap on `orders`: three quieter locks, each used later, by clients with long names.
    const quiet = ['alpha', 'beta', 'gamma'].flatMap((lock, i) => [
      at(2000 + i, `127.0.0.1:${6001 + i}`, 'client', 'setname', `redlock-cli:app-${i + 1}`),
      at(2100 + i * 100, `127.0.0.1:${6001 + i}`, 'SET', lock, `tok-${lock}`, 'NX', 'PX', '5000'),
    ]);
    session.push(decodeLines(quiet));
    // One connection without a name: its lane is its port.
    session.push(decodeLines([at(2500, '127.0.0.1:37066', 'SET', 'delta', 'tokZ', 'NX', 'PX', '5000')]));
    const state = traceLiveState(session, 99);
    const view = render(<TraceView state={state} what="the server" lagMs={0} columns={100} />);
    unmount = view.unmount;
    const frame = view.lastFrame() ?? '';
    const labels = frame.split('\n').map((l) => l.slice(0, 9).trimEnd());
    // The lock with the finding is pinned; the newest quiet locks fill the rest.
    expect(labels).toContain('orders');
    expect(labels).toEqual(expect.arrayContaining(['delta', 'gamma']));
    expect(labels).not.toContain('beta');
    expect(labels).not.toContain('alpha');
    // Client names cut to their distinguishing end, as the port lane already is.
    expect(labels).toContain('…i:app-3');
    expect(labels).toContain(':37066');
    expect(labels).toContain('worker-a');
    expect(frame).not.toMatch(/^redlock- /m);
  });
});

describe('TraceView at 40 columns', () => {
  it('no line is wider than the terminal (a wider one is wrapped by the terminal and leaves debris on repaint)', () => {
    for (const COLS of [40, 60]) {
      // ink's root is as wide as the terminal: a box of that width stands in for it.
      const view = render(<Box width={COLS}><TraceView state={traceLiveState(overlapSession(), 99)} what="the server (127.0.0.1:6379)" lagMs={3} columns={COLS} /></Box>);
      const lines = (view.lastFrame() ?? '').split('\n');
      view.unmount();
      for (const line of lines) expect(displayWidth(line), `${COLS}: ${line}`).toBeLessThanOrEqual(COLS);
    }
  });
});
