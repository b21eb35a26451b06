import { loopbackEndpoint } from '../../src/core/endpoint.js';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { TraceSession } from '../../src/core/trace/session.js';
import type { MonitorConnection, MonitorHandlers } from '../../src/redis/monitor.js';
import type { FeedHost } from '../../src/trace/feed.js';
import { MonitorFeed } from '../../src/trace/monitor-feed.js';

// The MONITOR feed between its lines: when is a script run complete, when has a lease run out.
// The lines are MONITOR text as Redis 7.0 prints it; only the connection is a stand-in here, so
// that the stream can pause mid-script for as long as the test wants (a busy server writes a
// monitor at most 64 KB per turn of its loop). The real-server side is test/trace/fence.test.ts.

const TOKEN_RELEASE =
  'if redis.call(\\"get\\", KEYS[1]) == ARGV[1] then return redis.call(\\"del\\", KEYS[1]) else return 0 end';
const FENCE_SOURCE = '127.0.0.1:6100';

/** `sec.usec` of a server time in ms, as MONITOR prints it. */
const stamp = (t: number) => `${Math.floor(t / 1000)}.${String(Math.round((t % 1000) * 1000)).padStart(6, '0')}`;

/** A token lock taken at `t`, then the first half of its compare-and-delete (the GET, not yet the DEL). */
const acquiredThenReleaseBegun = (t: number) => [
  `${stamp(t)} [0 127.0.0.1:5001] "SET" "job" "tokA" "PX" "30000" "NX"`,
  `${stamp(t + 1)} [0 127.0.0.1:5001] "EVAL" "${TOKEN_RELEASE}" "1" "job" "tokA"`,
  `${stamp(t + 1)} [0 lua] "get" "job"`,
];

/** A feed on a stand-in connection: lines are pushed by the test, sent commands are recorded. */
async function feedOnStandIn(lagMs = 0) {
  const events: TraceEvent[] = [];
  const status: string[] = [];
  const sent: string[][] = [];
  const session = new TraceSession();
  let handlers!: MonitorHandlers;
  const host: FeedHost = {
    emit: (e) => {
      events.push(...e);
      session.push(e);
    },
    received: () => undefined,
    lagMs,
    status: (text) => status.push(text),
  };
  const connection: MonitorConnection = {
    label: 'stand-in',
    ended: new Promise(() => undefined),
    send: (args) => sent.push([...args]),
    close: () => undefined,
  };
  const feed = new MonitorFeed(host, {
    wants: () => true,
    link: {
      names: async () => new Map(),
      open: async (_ep, h) => ((handlers = h), connection),
    },
  });
  await feed.attach({ ...loopbackEndpoint(6100), name: 'redlock-cli:trace' });
  return {
    feed,
    events,
    status,
    sent,
    session,
    lines: (...text: string[]) => handlers.onLines(text),
    refuse: (m: string) => handlers.onRefused?.(m),
  };
}

/** Waits (bounded) until `ok`; the feed's own timers run meanwhile. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!ok()) throw new Error(`never: ${what}`);
}

/** Lets the feed's timers run for a while (its quiet check is 50 ms; the old one waited 50 ms + 2 × lag). */
const idle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('MONITOR feed: fences instead of timers', () => {
  it('a script run split by a long pause stays open until the fence line; then the release is decoded, no refusal', async () => {
    const f = await feedOnStandIn();
    const t = Date.now();
    f.lines(...acquiredThenReleaseBegun(t));
    // Quiet: the feed asks for a fence instead of closing the run.
    await until(() => f.sent.length === 1, 'a fence sent');
    expect(f.sent).toEqual([['ECHO', 'redlock-cli:trace-fence:1']]);
    await idle(400);
    for (let i = 0; i < 5; i++) f.feed.tick();
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired']);
    expect(f.session.findings).toEqual([]);

    // The rest of the script after the pause, then the fence: everything before it has arrived.
    f.lines(`${stamp(t + 1)} [0 lua] "del" "job"`);
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired']);
    f.lines(`${stamp(t + 450)} [0 ${FENCE_SOURCE}] "ECHO" "redlock-cli:trace-fence:1"`);
    expect(f.events.map((e) => [e.kind, e.lock, e.owner, e.t - t])).toEqual([
      ['attempt', 'job', 'tokA', 0],
      ['acquired', 'job', 'tokA', 0],
      ['released', 'job', 'tokA', 1],
    ]);
    expect(f.feed.completeUntil).toBe(t + 450);
    // The fence line itself is no event, and nothing more is asked once all is complete.
    await idle(200);
    expect(f.events).toHaveLength(3);
    expect(f.sent).toHaveLength(1);
    await f.feed.stop();
    expect(f.session.findings).toEqual([]);
  });

  it('ending the trace mid-script: settle() fences and waits, so the run is not cut short into a refusal', async () => {
    const f = await feedOnStandIn();
    const t = Date.now();
    f.lines(...acquiredThenReleaseBegun(t));
    const settled = f.feed.settle();
    expect(f.sent).toEqual([['ECHO', 'redlock-cli:trace-fence:1']]);
    f.lines(
      `${stamp(t + 1)} [0 lua] "del" "job"`,
      `${stamp(t + 3)} [0 ${FENCE_SOURCE}] "ECHO" "redlock-cli:trace-fence:1"`,
    );
    await settled;
    await f.feed.stop();
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired', 'released']);
    expect(f.session.findings).toEqual([]);
  });

  it('an abandoned lease expires at its server time when a fence passes it, however far behind the trace is', async () => {
    // 60 s of lag: the local-clock fallback (2 × lag margin) could not emit this expiry for 2 minutes.
    const f = await feedOnStandIn(60_000);
    const t = Date.now();
    f.lines(`${stamp(t)} [0 127.0.0.1:5001] "SET" "job" "tokA" "PX" "50" "NX"`);
    await until(() => f.sent.length === 1, 'a fence sent on quiet');
    f.lines(`${stamp(t + 20)} [0 ${FENCE_SOURCE}] "ECHO" "redlock-cli:trace-fence:1"`);
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired']); // not yet at that server time
    // Once the lease is due by the server clock estimate, a tick asks for a fence.
    await until(() => (f.feed.tick(), f.sent.length === 2), 'a fence sent for the expiry');
    expect(f.sent[1]).toEqual(['ECHO', 'redlock-cli:trace-fence:2']);
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired']);
    f.lines(`${stamp(t + 75)} [0 ${FENCE_SOURCE}] "ECHO" "redlock-cli:trace-fence:2"`);
    expect(f.events.map((e) => [e.kind, e.t - t])).toEqual([
      ['attempt', 0],
      ['acquired', 0],
      ['expired', 50],
    ]);
    await f.feed.stop();
  });

  it('a node that refuses the fence: no run is closed on a timer, the next command closes it', async () => {
    const f = await feedOnStandIn();
    const t = Date.now();
    f.lines(...acquiredThenReleaseBegun(t));
    await until(() => f.sent.length === 1, 'a fence sent');
    f.refuse("NOPERM this user has no permissions to run the 'echo' command");
    expect(f.status).toEqual([
      expect.stringMatching(
        /^the server refused the trace's ECHO fence \(NOPERM .*\): a script run completes at the next command/,
      ),
    ]);
    await idle(400);
    for (let i = 0; i < 5; i++) f.feed.tick();
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired']);
    f.lines(`${stamp(t + 1)} [0 lua] "del" "job"`, `${stamp(t + 500)} [0 127.0.0.1:5002] "GET" "other"`);
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired', 'released']);
    expect(f.sent).toHaveLength(1); // no fence after a refusal
    await f.feed.stop();
    expect(f.session.findings).toEqual([]);
  });

  it("another trace's fence lines, seen in the stream, complete runs but are never traffic", async () => {
    const f = await feedOnStandIn();
    const t = Date.now();
    f.lines(
      ...acquiredThenReleaseBegun(t),
      `${stamp(t + 1)} [0 lua] "del" "job"`,
      `${stamp(t + 2)} [0 127.0.0.1:7000] "ECHO" "redlock-cli:trace-fence:99"`,
    );
    expect(f.events.map((e) => e.kind)).toEqual(['attempt', 'acquired', 'released']);
    expect(JSON.stringify(f.events)).not.toMatch(/fence|ECHO/i);
    await f.feed.stop();
  });
});
