// The REPL's panel and prompt at 120, 80, 45 and 40 columns, on a real redis-server: a watched
// fair lock with waiters, a long key held in the background, a client waiting for it, and `who`'s
// report. A row wider than the terminal is wrapped by the terminal, not by ink, and ink's next
// repaint erases one row too few (debris); a row ink wraps itself grows the panel by a row, and
// the whole screen shifts with every countdown that changes its length. So at every width each
// line of every frame fits, and the panel has as many rows as at 120 columns: none wrapped.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fairLock } from '../../src/locks/fair.js';
import { urlTarget } from '../../src/repl/target.js';
import { owner, testEnv } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { expectFits, framesAtWidth } from './narrow.js';
import { type MountedRepl, mountRepl, unmountAll } from './repl-harness.js';

const LONG = 'orders:2024:eu-west-1:customer-4242:invoice-lock';
let server: RedisServer;
let env: Awaited<ReturnType<typeof testEnv>>;
beforeAll(async () => {
  server = await startRedis();
  env = await testEnv(server);
  // A fair lock held by someone else with two waiters queued behind it: the widest inspect block.
  const fair = fairLock();
  await fair.tryAcquire(env, { key: 'fair', owner: owner(0), leaseMs: 600_000 });
  for (const n of [1, 2]) await fair.queuedAttempt(env, { key: 'fair', owner: owner(n), leaseMs: 600_000 }, 120_000);
});
afterEach(unmountAll);
afterAll(async () => {
  await env?.close();
  await server?.stop();
});

/**
 * The part of a frame ink repaints: the panel and the prompt under it. (ink-testing-library's
 * frames also repeat the <Static> output above, which a terminal scrolled away at the width it had
 * then: it is written once, never repainted, so it cannot leave debris.)
 */
const live = (frame: string): string => frame.slice(Math.max(0, frame.lastIndexOf('\n┌') + 1));

/** The panel's rows (between its top and bottom border) in a frame. */
const panelRows = (frame: string): string[] => {
  const lines = frame.split('\n');
  const top = lines.findIndex((l) => l.startsWith('┌'));
  const bottom = lines.findIndex((l, i) => i > top && l.startsWith('└'));
  return top < 0 || bottom < 0 ? [] : lines.slice(top + 1, bottom);
};

/** The next `count` frames the REPL writes (up to 5 s). */
async function laterFrames(r: MountedRepl, count: number): Promise<string[]> {
  const frames = (r.view.stdout as unknown as { frames: string[] }).frames;
  const from = frames.length;
  const deadline = Date.now() + 5000;
  while (frames.length < from + count && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
  return frames.slice(from);
}

async function busyRepl(): Promise<MountedRepl> {
  const r = await mountRepl(urlTarget(server.url));
  r.enter('watch fair');
  await r.until(() => /queue +#/.test(r.panel()), 'the fair lock and its queue on the panel', 30_000);
  r.enter(`as A hold ${LONG} --watchdog 30s`);
  await r.until(() => /A holds orders/.test(r.panel()), 'A holding the long key', 30_000);
  r.enter(`as B hold ${LONG} --wait 5m`);
  await r.until(() => /B waits for orders/.test(r.panel()), 'B waiting for it', 30_000);
  r.enter(`who ${LONG} --sample 1s`);
  await r.until(
    () => /who on 127\.0\.0\.1:\d+/.test(r.panel()) && /holder /.test(r.panel()),
    "who's report on the panel",
    30_000,
  );
  return r;
}

describe('the REPL panel and prompt at any width down to 40 columns', () => {
  it('every row fits and stays one row at 120, 80, 45 and 40 columns, and back at 120', async () => {
    const r = await busyRepl();
    const wide = (await framesAtWidth(r.view, 120, /B waits for/)).map(live);
    expectFits(wide, 120);
    const rowsAt120 = panelRows(wide.at(-1)!).length;
    expect(rowsAt120).toBeGreaterThan(8);
    for (const columns of [80, 45, 40, 120]) {
      const frames = (await framesAtWidth(r.view, columns, /B waits for/)).map(live);
      // ink repaints the old tree at once (clipped at the edge); the views hear of the resize after.
      // The panel repaints every 50 ms: a few frames later the tree is the new width's.
      frames.push(...(await laterFrames(r, 5)).map(live));
      expectFits(frames, columns);
      // The last frame is drawn at the new width (the first may still be the old tree, clipped).
      const rows = panelRows(frames.at(-1)!);
      expect(rows, `${columns} columns:\n${frames.at(-1)}`).toHaveLength(rowsAt120);
      // The prompt is one row of its own under the panel.
      expect(
        frames
          .at(-1)!
          .split('\n')
          .filter((l) => /^[A-Z][\w-]*@\S+>( |$)/.test(l)),
      ).toHaveLength(1);
    }
  }, 180_000);
});
