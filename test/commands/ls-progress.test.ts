import { describe, expect, it } from 'vitest';
import { scanProgress } from '../../src/commands/ls-progress.js';
import type { RunContext } from '../../src/commands/context.js';

// The "scanning ..." line of ls and doctor: only on a terminal, only once a scan runs long enough
// to wonder about, at most five times a second, and wiped before results are printed.

function terminal(isTTY: boolean): { ctx: RunContext; written: string[] } {
  const written: string[] = [];
  const ctx = { stderr: { write: (t: string) => written.push(t), isTTY }, stdout: { write: () => undefined, isTTY }, env: {} } as unknown as RunContext;
  return { ctx, written };
}

const CLEAR = '\r\x1b[2K';
const at = (node: string, scanned: number, found: number) => ({ node, scanned, found });

describe('scan progress', () => {
  it('waits 300 ms, then shows the count at most every 200 ms, and clears itself when done', () => {
    const { ctx, written } = terminal(true);
    let now = 1000;
    const progress = scanProgress(ctx, 'locks', () => now);
    progress.update(at('127.0.0.1:6379', 1000, 1));
    now += 299;
    progress.update(at('127.0.0.1:6379', 5000, 2));
    expect(written).toEqual([]); // a quick scan says nothing
    now += 1;
    progress.update(at('127.0.0.1:6379', 120_000, 35));
    now += 199;
    progress.update(at('127.0.0.1:6379', 130_000, 36)); // too soon after the last
    now += 1;
    progress.update(at('127.0.0.1:7000', 1_250_000, 1_234));
    expect(written).toEqual([
      `${CLEAR}scanning 127.0.0.1:6379: 120,000 keys, 35 locks`,
      `${CLEAR}scanning 127.0.0.1:7000: 1,250,000 keys, 1,234 locks`,
    ]);
    progress.done();
    expect(written.at(-1)).toBe(CLEAR);
  });

  it('names what it counts, and clears nothing when it never showed', () => {
    const { ctx, written } = terminal(true);
    let now = 0;
    const progress = scanProgress(ctx, 'keys listed', () => now);
    progress.done();
    expect(written).toEqual([]);
    now = 500;
    progress.update(at('n1', 10, 3));
    expect(written).toEqual([`${CLEAR}scanning n1: 10 keys, 3 keys listed`]);
  });

  it('writes nothing without a terminal (a log would fill with carriage returns)', () => {
    const { ctx, written } = terminal(false);
    let now = 0;
    const progress = scanProgress(ctx, 'locks', () => now);
    now = 10_000;
    progress.update(at('n1', 1_000_000, 10));
    progress.done();
    expect(written).toEqual([]);
  });
});
