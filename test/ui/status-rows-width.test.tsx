import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/core/text-layout.js';
import type { InspectScreen } from '../../src/ui/inspect-store.js';
import type { LockView } from '../../src/core/lock-view.js';
import { InspectKey } from '../../src/ui/InspectKey.js';
import { InspectQueue } from '../../src/ui/InspectQueue.js';
import { InspectStatus } from '../../src/ui/InspectStatus.js';

// Rows that move with the clock stay one row at any width: a row that wrapped in some repaints and
// not others (a countdown reading "999 ms", then "1.0 s") changed the frame's height, and a
// terminal kept a row of an old frame. What gives way is the long, still part: a target, an owner.

const CLUSTER = 'cluster 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function lines(node: React.ReactElement, columns: number): string[] {
  const view = render(<Box width={columns}>{node}</Box>);
  const frame = view.lastFrame() ?? '';
  view.unmount();
  return frame.split('\n');
}

const screen = (over: Partial<InspectScreen>): InspectScreen => ({ keys: ['orders'], target: CLUSTER, intervalMs: 1000, scales: {}, log: [], readAt: T0, ...over });

describe('inspect --watch: the status row', () => {
  it('a late read on a cluster: one row at 80 columns, the target cut in the middle, the age and keys kept', () => {
    const [row, ...rest] = lines(<InspectStatus screen={screen({})} now={T0 + 12_300} />, 80);
    expect(rest).toEqual([]);
    expect(row).toMatch(/^● cluster 127\.\S*…\S*:7002 every 1\.0 s · last read 12\.3 s ago · p pause · q quit$/);
    expect(displayWidth(row!)).toBeLessThanOrEqual(80);
  });

  it('reconnecting while a retry counts down: one row at 80 columns, whatever the countdown reads', () => {
    // The last read 12 s ago, the retry 999 ms away: 81 columns before the target could give way.
    for (const now of [T0 + 1000, T0 + 3001, T0 + 4001]) {
      const s = screen({ target: '127.0.0.1:6379', readAt: T0 - 8000, reconnecting: { at: T0, target: '127.0.0.1:6379' }, retry: { at: T0 + 1000, retryInMs: 4000, error: 'connect ECONNREFUSED' } });
      const [row, ...rest] = lines(<InspectStatus screen={s} now={now} />, 80);
      expect(rest).toEqual([]);
      expect(row).toMatch(/^reconnecting to 127\.\S*:6379… retrying in \S+ \S+ · last read \S+ \S+ ago · q quit$/);
      expect(displayWidth(row!)).toBeLessThanOrEqual(80);
    }
  });
});

describe('inspect --watch: the fair queue', () => {
  it('a waiter whose deadline is minutes away keeps one row: the owner is cut, the deadline kept', () => {
    const owner = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
    const queue = [
      { owner: `${owner}0`, position: 0, deadlineInMs: -1200 },
      { owner: `${owner}1`, position: 1, deadlineInMs: 119_000, expectedWaitMs: 89_000 },
    ];
    const rows = lines(<InspectQueue queue={queue} elapsedMs={0} />, 72);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^queue +# +waiter +deadline +expected wait +listening$/);
    expect(rows[1]).toMatch(/^ +1\. +6f1c2b8\S*…\S*:10 +overdue 1\.2 s +\? +\?$/);
    expect(rows[2]).toMatch(/^ +2\. +6f1c2b8\S*…\S*:11 +in 1 m 59 s +1 m 29 s +\?$/);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(72);
  });
});

describe('inspect --watch: a key\'s header', () => {
  it('a long key gives way when waiters come and go: the header stays one row', () => {
    const key = 'redisson_lock:{orders}:payment-service:tenant-1234567:invoice';
    const view = (waiters: number): LockView => ({ key, kind: 'reentrant', type: 'hash', ttlMs: 20_000, holders: [{ owner: 'a:1', count: 1 }], waiters, warnings: [], readAt: T0 });
    for (const waiters of [0, 12]) {
      const [header] = lines(<InspectKey view={view(waiters)} elapsedMs={0} />, 80);
      expect(header).toMatch(waiters ? /^redisson_lock:\S*…\S*invoice {2}reentrant {2}held {2}12 waiting for unlock$/ : /^redisson_lock:\S*invoice {2}reentrant {2}held$/);
      expect(displayWidth(header!)).toBeLessThanOrEqual(80);
    }
  });
});

