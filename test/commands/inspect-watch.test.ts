import { describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { wantsWatch } from '../../src/commands/inspect/watch.js';
import { WATCH_CONNECTION_NAME } from '../../src/inspect/watch.js';
import { run } from '../../src/main.js';
import { useBackgroundRuns, useRedisServer } from '../helpers/fixture.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import { dumpAll, sideEffects } from '../helpers/read-only.js';
import { startRedis } from '../helpers/redis-server.js';
import { Keyboard, Sink } from '../helpers/terminal.js';
import { watchCommands } from '../helpers/monitor.js';

const fx = useRedisServer({ flushEachTest: true });
// A failed test must not leave a watch running.
const runs = useBackgroundRuns();

/** Starts `inspect <argv>` through run(); the handle lets the test read its output, press keys and interrupt it. */
function inspect(argv: string[], opts: { url?: string; tty?: boolean } = {}) {
  const stdout = new Sink(opts.tty);
  const stderr = new Sink();
  const stdin = new Keyboard();
  const ctx = { stdout, stderr, stdin: stdin as unknown as NodeJS.ReadableStream, env: {} };
  const { done, interrupt } = runs.start((signal) => run(['inspect', '-u', opts.url ?? fx.server.url, ...argv], { ...ctx, signal }));
  return {
    stdout,
    stderr,
    stdin,
    done,
    interrupt,
    /** Resolves once `pattern` shows up on the stream after its first `from` characters (bounded). */
    async waitFor(stream: Sink, pattern: RegExp, timeoutMs = 8000, from = 0) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(stream.text.slice(from))) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; stdout: ${stdout.text} stderr: ${stderr.text}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

describe('inspect --watch --json', () => {
  it('prints one JSON array of every key per tick, --interval apart, and stops after --count', async () => {
    await fx.raw.hset('orders', owner(1), '2');
    await fx.raw.pexpire('orders', 30_000);
    const w = inspect(['orders', 'reports', '--watch', '--json', '--interval', '200ms', '--count', '4']);
    expect(await w.done).toBe(0);
    const ticks = w.stdout.lines().map((l) => JSON.parse(l) as LockView[]);
    expect(ticks).toHaveLength(4);
    for (const views of ticks) {
      expect(views.map((v) => v.key)).toEqual(['orders', 'reports']);
      expect(views[0]).toMatchObject({ kind: 'reentrant', holders: [{ owner: owner(1), count: 2 }] });
      expect(views[1]).toMatchObject({ kind: 'missing', ttlMs: -2 });
    }
    // readAt is the server's clock when each snapshot ran: ticks are 200 ms apart start to start,
    // not back to back (~1 ms) and not the default 1 s. A loaded machine delays single reads (the
    // first also loads its script), so each gap gets room either way, not a 40 ms budget in all.
    const readAt = ticks.map((views) => views[0]!.readAt);
    const gaps = readAt.slice(1).map((t, i) => t - readAt[i]!);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThan(120);
      expect(gap).toBeLessThan(900); // still not the default 1 s, however late a tick ran
    }
    expect(readAt.at(-1)! - readAt[0]!).toBeGreaterThan(3 * 200 - 120);
    expect(ticks[1]![0]!.ttlMs).toBeLessThan(ticks[0]![0]!.ttlMs);
    expect(w.stderr.text).toBe('');
  });

  it('runs until interrupted, then exits 130 and closes its named connection', async () => {
    const w = inspect(['orders', '--watch', '--json', '--interval', '100ms']);
    await w.waitFor(w.stdout, /\n.*\n/);
    const clients = (await fx.raw.call('CLIENT', 'LIST')) as string;
    expect(clients).toContain(`name=${WATCH_CONNECTION_NAME}`);
    w.interrupt();
    expect(await w.done).toBe(130);
    const after = (await fx.raw.call('CLIENT', 'LIST')) as string;
    expect(after).not.toContain(`name=${WATCH_CONNECTION_NAME}`);
  });

  it('raises an interval below the floor and says so', async () => {
    const w = inspect(['orders', '--watch', '--json', '--interval', '10ms', '--count', '3']);
    expect(await w.done).toBe(0);
    expect(w.stderr.text).toBe('--interval 10ms is below the 100 ms floor: reading every 100 ms\n');
    const readAt = w.stdout.lines().map((l) => (JSON.parse(l) as LockView[])[0]!.readAt);
    expect(readAt[2]! - readAt[0]!).toBeGreaterThan(2 * 100 - 30); // 10 ms would be ~20
  });
});

interface Seen {
  readonly at: number;
  /** Client address, or 'lua' for commands a script ran. */
  readonly source: string;
  readonly args: readonly string[];
}

/** Every command the server runs while `fn` does. */
async function monitored(fn: () => Promise<void>): Promise<Seen[]> {
  const monitor = await watchCommands(fx.server);
  try {
    await fn();
    await fx.raw.ping(); // MONITOR delivers in order: once our PING is back, everything before it is in
  } finally {
    monitor.close();
  }
  return monitor.seen.map(({ t, source, args }) => ({ at: t, source, args }));
}

/** The address a client named itself from (ioredis sends CLIENT SETNAME first on connect). */
const addressOf = (seen: readonly Seen[], name: string): string | undefined =>
  seen.find((c) => c.args[0]?.toLowerCase() === 'client' && c.args[2] === name)?.source;

/**
 * What a client sent to read, without connecting (CLIENT SETNAME, the bare INFO of the ready
 * check, INFO cluster of the Cluster check) and leaving (QUIT). EVAL counts as EVALSHA: the first read of a script loads it.
 */
function reads(seen: readonly Seen[], address: string | undefined): { at: number; name: string }[] {
  return seen
    .filter((c) => c.source === address)
    .map((c) => {
      const command = c.args[0]!.toLowerCase();
      return { at: c.at, name: command === 'eval' ? 'evalsha' : command === 'info' ? `info ${c.args[1] ?? ''}`.trim() : command };
    })
    .filter((c) => !['client', 'info', 'info cluster', 'quit'].includes(c.name));
}

describe('inspect --watch load on Redis', () => {
  it('one tick costs what one plain inspect costs, sent together as one pipeline', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    await fx.raw.pexpire('orders', 30_000);
    const seen = await monitored(async () => {
      expect(await inspect(['orders', 'reports']).done).toBe(4); // reports does not exist: exit 4, as always
      expect(await inspect(['orders', 'reports', '--watch', '--json', '--interval', '200ms', '--count', '3']).done).toBe(0);
    });
    const once = reads(seen, addressOf(seen, 'redlock-cli:inspect')).map((c) => c.name);
    expect(once).toEqual(['evalsha', 'evalsha', 'info replication']);
    // Ticks are 200 ms apart; the commands of one tick arrive together.
    const ticks: { at: number; name: string }[][] = [];
    for (const c of reads(seen, addressOf(seen, WATCH_CONNECTION_NAME))) {
      const last = ticks.at(-1);
      if (last && c.at - last[0]!.at < 100) last.push(c);
      else ticks.push([c]);
    }
    expect(ticks).toHaveLength(3);
    for (const tick of ticks) {
      expect(tick.map((c) => c.name)).toEqual(once);
      expect(tick.at(-1)!.at - tick[0]!.at).toBeLessThan(50); // one burst, not three round trips
    }
  });

  it('is read-only: with MONITOR running, a few ticks send no write or publish and change nothing', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    await fx.raw.pexpire('orders', 30_000);
    await fx.raw.zadd('redisson_lock_timeout:{orders}', Date.now() + 5000, owner(2));
    await fx.raw.rpush('redisson_lock_queue:{orders}', owner(2));
    const changes = async () => Number(/rdb_changes_since_last_save:(\d+)/.exec(await fx.raw.info('persistence'))?.[1]);
    const before = await changes();
    const dumps = await dumpAll(fx.raw);
    const seen = await monitored(async () => {
      expect(await inspect(['orders', 'missing', '--watch', '--json', '--interval', '100ms', '--count', '4']).done).toBe(0);
    });
    const watch = addressOf(seen, WATCH_CONNECTION_NAME);
    const sent = seen.filter((c) => c.source === watch || c.source === 'lua');
    expect(sent.map((c) => c.args[0]!.toLowerCase())).toContain('hgetall'); // the scripts' own reads are in the log too
    expect(await sideEffects(fx.raw, sent.map((c) => c.args))).toEqual([]);
    expect(await changes()).toBe(before);
    expect(await dumpAll(fx.raw)).toEqual(dumps);
  });
});

describe('inspect --once', () => {
  it('is one snapshot, exactly like plain inspect, also with --watch', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    await fx.raw.pexpire('orders', 30_000);
    const w = inspect(['orders', '--watch', '--once', '--json']);
    expect(await w.done).toBe(0);
    const lines = w.stdout.lines();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject([{ key: 'orders', kind: 'reentrant' }]);
  });
});

describe('inspect --watch on a terminal', () => {
  it('draws the live view; p pauses reading, q quits with 0 and closes the connection', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    await fx.raw.pexpire('orders', 30_000);
    const w = inspect(['orders', '--watch', '--interval', '100ms'], { tty: true });
    await w.waitFor(w.stdout, /every 100 ms · p pause/);
    expect(w.stdout.text).toMatch(new RegExp(`holder\\s+${owner(1)}`));
    const reads = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec((await fx.raw.info('commandstats')) ?? '')?.[1] ?? 0);
    w.stdin.press('p');
    await w.waitFor(w.stdout, /paused at/);
    const pausedAt = await reads();
    await new Promise((r) => setTimeout(r, 400));
    expect(await reads()).toBe(pausedAt);
    const resumedFrom = w.stdout.text.length;
    w.stdin.press('p');
    await w.waitFor(w.stdout, /every 100 ms · p pause/, 10_000, resumedFrom);
    expect(await reads()).toBeGreaterThan(pausedAt);
    w.stdin.press('q');
    expect(await w.done).toBe(0);
    expect(w.stdout.text).toMatch(/stopped: last read at \d\d:\d\d:\d\d/);
    expect((await fx.raw.call('CLIENT', 'LIST')) as string).not.toContain(`name=${WATCH_CONNECTION_NAME}`);
  });

  it('Ctrl-C (a key in raw mode) exits 130 like an interrupted hold', async () => {
    const w = inspect(['orders', '--watch'], { tty: true });
    await w.waitFor(w.stdout, /every 1\.0 s · p pause/);
    w.stdin.press('\u0003');
    expect(await w.done).toBe(130);
  });
});

describe('inspect --watch without a terminal', () => {
  it('refuses to animate, pointing to --once and --json, before connecting anywhere', async () => {
    const w = inspect(['orders', '--watch'], { url: 'redis://127.0.0.1:1' });
    expect(await w.done).toBe(2);
    expect(w.stderr.lines()).toEqual([
      'redlock-cli: --watch draws a live view and needs a terminal: use --once for one snapshot, or --json for one JSON line per tick',
    ]);
    expect(w.stdout.text).toBe('');
  });

  it('--interval and --count without --watch are usage errors', async () => {
    expect(() => wantsWatch({ interval: '1s' })).toThrow('--interval goes with --watch');
    expect(() => wantsWatch({ count: '3' })).toThrow('--count goes with --watch');
    expect(wantsWatch({ watch: true, once: true })).toBe(false);
  });
});

describe('inspect --watch when Redis goes away', () => {
  it('says it is retrying while the server is down and reads again as soon as it is back on the same port', async () => {
    let own = await startRedis();
    try {
      const w = inspect(['orders', '--watch', '--json', '--interval', '100ms'], { url: own.url });
      await w.waitFor(w.stdout, /\n/);
      await own.stop();
      await w.waitFor(w.stderr, /could not read: .*; retrying in 1\.0 s/);
      const before = w.stdout.lines().length;
      own = await startRedis({ port: own.port });
      const back = rawClient(own);
      await back.hset('orders', owner(3), '1');
      back.disconnect();
      await w.waitFor(w.stderr, /reconnected to/);
      // Back: it reads at once instead of waiting out the poller's backoff.
      const reconnectedAt = Date.now();
      await w.waitFor(w.stderr, /reading again/);
      expect(Date.now() - reconnectedAt).toBeLessThan(300);
      await w.waitFor(w.stdout, new RegExp(owner(3).replace(/[.:-]/g, '\\$&')));
      expect(w.stdout.lines().length).toBeGreaterThan(before);
      expect(w.stderr.text).toMatch(/connection to 127\.0\.0\.1:\d+ lost: reconnecting/);
      w.interrupt();
      expect(await w.done).toBe(130);
    } finally {
      await own.stop();
    }
  });
});
