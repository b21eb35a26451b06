import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import type { HoldEvent } from '../../src/core/hold-events.js';
import type { CommandOutcome } from '../../src/core/outcomes.js';
import { useBackgroundRuns, useRedisServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Remembered owners go to a private state dir, never the user's.
const stateEnv = tempStateEnv();
const fx = useRedisServer({ flushEachTest: true });
const childPids = new Set<number>();
afterEach(() => {
  // A failed test must not leave a hold's command running: kill it by pid once its hold has been interrupted.
  for (const pid of childPids) killGroup(pid);
  childPids.clear();
});
// Registered after the hook above, so it runs first: a hold left running is interrupted and awaited.
const runs = useBackgroundRuns();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

class Sink {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    const started = /started pid (\d+)/.exec(chunk);
    if (started) childPids.add(Number(started[1]));
    return true;
  }
}

/** Starts `hold ...` through run(); the returned handle lets the test watch output and interrupt it. */
function hold(...args: string[]) {
  const stdout = new Sink();
  const stderr = new Sink();
  const startedAt = Date.now();
  // What hold reports to a host, each event stamped by hold's own clock.
  const events: HoldEvent[] = [];
  const emit = (o: CommandOutcome): void => void (o.type === 'hold-event' && events.push(o.event));
  const { done, interrupt } = runs.start((signal) => run(['hold', '-u', fx.server.url, ...args], { stdout, stderr, env: stateEnv, signal, emit }));
  return {
    stdout,
    stderr,
    events,
    done,
    startedAt,
    interrupt,
    /** Resolves once `pattern` shows up in stdout + stderr. */
    waitFor: async (pattern: RegExp, timeoutMs = 5000) => {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(stdout.text + stderr.text)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}:\n${stdout.text}${stderr.text}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const node = (script: string) => ['--', process.execPath, '-e', script];
// Waits in a child until killed; says "ready" once its SIGTERM handler (if any) is in place.
const WAIT_FOREVER = "setInterval(() => {}, 1000); console.log('ready');";

describe('hold without a command (event lines, no TTY)', () => {
  it('prints one line per event, keeps the lock past its watchdog lease, and releases after --for', async () => {
    const h = hold('orders', '--watchdog', '600ms', '--for', '1500ms', '--owner', owner(1));
    expect(await h.done).toBe(0);
    expect(await fx.raw.exists('orders')).toBe(0);
    // Kept past its 600 ms lease: the release, 1.5 s or more after the acquisition by hold's own
    // clock, still found our owner's field (outcome 'released', not 'not-owner'), so renewals
    // carried it; at least two were needed to bridge 1.5 s with 600 ms leases. Order and server
    // replies only: however late a busy machine runs the timers, these hold.
    // 'renewing' (a renewal sent) prints no line; each 'renewed' (its reply) does.
    const types = h.events.map((e) => e.type).filter((t) => t !== 'renewing');
    expect(types.slice(0, 2)).toEqual(['acquiring', 'acquired']);
    expect(types.at(-1)).toBe('released');
    expect(new Set(types.slice(2, -1))).toEqual(new Set(['renewed']));
    expect(types.filter((t) => t === 'renewed').length).toBeGreaterThanOrEqual(2);
    const released = h.events.at(-1);
    expect(released).toMatchObject({ type: 'released', reason: 'for-elapsed', outcome: 'released' });
    expect((released as { heldMs: number }).heldMs).toBeGreaterThanOrEqual(1500);
    // One line per event, in the same order.
    const out = lines(h.stdout.text).map((l) => l.replace(/^\d\d:\d\d:\d\d\.\d{3} /, ''));
    expect(out).toHaveLength(types.length);
    expect(out[0]).toBe(`acquiring "orders" (reentrant) as ${owner(1)}`);
    expect(out[1]).toBe(`acquired "orders" (reentrant) as ${owner(1)}: watchdog lease 600 ms, renewed every 200 ms`);
    expect(out.slice(2, -1).every((l) => l.startsWith('renewed "orders": lease 600 ms from now'))).toBe(true);
    expect(out.at(-1)).toMatch(/^released "orders" after \d+\.\d s \(--for elapsed\)$/);
    expect(h.stderr.text).toBe('');
    // Its bound, not a timing: the file's first hold loads the command's modules, which beside
    // 3 CPU hogs per core (load 25+) took 20 s and more before anything was sent to Redis.
  }, 60_000);

  it('--json prints NDJSON events', async () => {
    // Renewals every 200 ms: one or two before --for ends at 500 ms, however late a busy machine runs them.
    const h = hold('orders', '--watchdog', '600ms', '--for', '500ms', '--json');
    expect(await h.done).toBe(0);
    const events = lines(h.stdout.text).map((l) => JSON.parse(l) as { event: string; key: string; at: string });
    const names = events.map((e) => e.event);
    expect(names.slice(0, 2)).toEqual(['acquiring', 'acquired']);
    expect(names.at(-1)).toBe('released');
    expect(names.slice(2, -1).length).toBeGreaterThanOrEqual(1);
    expect(new Set(names.slice(2, -1))).toEqual(new Set(['renewed']));
    expect(events.every((e) => e.key === 'orders' && !Number.isNaN(Date.parse(e.at)))).toBe(true);
    expect(events[1]).toMatchObject({ mode: 'watchdog', leaseMs: 600, renewEveryMs: 200, count: 1 });
  });

  it('Ctrl-C (ctx.signal aborted) releases the lock and returns 130', async () => {
    const h = hold('orders', '--watchdog', '600ms', '--owner', owner(1));
    await h.waitFor(/acquired/);
    expect(await fx.raw.exists('orders')).toBe(1);
    h.interrupt();
    expect(await h.done).toBe(130);
    expect(await fx.raw.exists('orders')).toBe(0);
    expect(h.stdout.text).toMatch(/released "orders" after .* \(interrupted\)\n$/);
  });

  it('a fixed --lease is not renewed and ends with "lease expired", exit 0', async () => {
    const h = hold('orders', '--lease', '500ms');
    expect(await h.done).toBe(0);
    expect(Date.now() - h.startedAt).toBeGreaterThanOrEqual(450);
    expect(h.stdout.text).not.toMatch(/renewed "orders"/);
    const held = /lease expired: "orders" was held for (\d+) ms and is free again\n$/.exec(h.stdout.text);
    expect(held, h.stdout.text).not.toBeNull();
    // The 500 ms lease, however late a busy machine ran the timer that saw it end.
    expect(Number(held![1])).toBeGreaterThanOrEqual(450);
    expect(Number(held![1])).toBeLessThan(2500);
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('not acquired: someone else holds it past --wait, returns 5 naming the holder', async () => {
    await fx.raw.hset('orders', owner(9), '1');
    await fx.raw.pexpire('orders', 10_000);
    const h = hold('orders', '--wait', '300ms');
    expect(await h.done).toBe(5);
    expect(Date.now() - h.startedAt).toBeGreaterThanOrEqual(280);
    expect(h.stdout.text).toMatch(new RegExp(`not acquired: "orders" is held by ${owner(9)} for another \\d+\\.\\d s`));
    expect(await fx.raw.hget('orders', owner(9))).toBe('1');
  });

  it('a force-unlock while holding is reported as lost, exit 5', async () => {
    const h = hold('orders', '--watchdog', '30s'); // renews every 10 s: only the 1 s check can be this quick
    await h.waitFor(/acquired/);
    const deletedAt = Date.now();
    await fx.raw.del('orders');
    expect(await h.done).toBe(5);
    expect(Date.now() - deletedAt).toBeLessThan(5000); // the 1 s ownership check, not the 10 s renewal
    expect(h.stdout.text).toMatch(/lost "orders": it was deleted or taken over \(force-unlocked\?\); nobody holds it now\n$/);
  });

  it.each(['write', 'read', 'fenced', 'fair', 'token'])('a force-unlock of a %s hold is noticed within the 1 s check', async (kind) => {
    const h = hold('orders', '--kind', kind, '--watchdog', '30s');
    await h.waitFor(/acquired/);
    const deletedAt = Date.now();
    await fx.raw.del('orders');
    expect(await h.done).toBe(5);
    expect(Date.now() - deletedAt).toBeLessThan(5000);
  });

  it('is remembered while held, so a release from another process works if the hold dies', async () => {
    const h = hold('orders', '--watchdog', '6s');
    await h.waitFor(/acquired/);
    const other = await runCli(['release', 'orders', '-u', fx.server.url], stateEnv);
    expect(other).toMatchObject({ code: 0, stdout: 'released "orders"\n' });
    expect(await h.done).toBe(5); // the hold itself sees the lock gone
    const again = await runCli(['release', 'orders', '-u', fx.server.url], stateEnv);
    expect(again).toMatchObject({ code: 4, stderr: 'redlock-cli: "orders" is not locked: nobody holds it (nothing to release)\n' });
  });

  it('refuses --lease together with --watchdog (usage, exit 2) without touching Redis', async () => {
    const h = hold('orders', '--lease', '1s', '--watchdog', '1s');
    expect(await h.done).toBe(2);
    expect(h.stderr.text).toMatch(/either --lease .* or --watchdog/);
    expect(await fx.raw.exists('orders')).toBe(0);
  });
});

describe('hold -- command', () => {
  it('runs the command with the lock in its environment and passes its exit code through', async () => {
    const script = "const e = process.env; console.log(JSON.stringify([e.REDLOCK_KEY, e.REDLOCK_KIND, e.REDLOCK_OWNER, e.REDLOCK_TOKEN])); process.exit(3)";
    const h = hold('orders', '--kind', 'fenced', '--owner', owner(1), ...node(script));
    expect(await h.done).toBe(3);
    // stdout is the command's alone; our event lines moved to stderr.
    expect(JSON.parse(h.stdout.text)).toEqual(['orders', 'fenced', owner(1), '1']);
    expect(h.stderr.text).toMatch(/token 1\n/);
    expect(h.stderr.text).toMatch(/pid \d+ exited with code 3\n.*released "orders" after .* \(the command finished\)\n$/);
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('keeps the lock while the command runs past the watchdog lease', async () => {
    const h = hold('orders', '--watchdog', '600ms', '--owner', owner(1), ...node("setTimeout(() => console.log('done'), 3000)"));
    await h.waitFor(/started pid/);
    await new Promise((r) => setTimeout(r, 900)); // past the 600 ms lease, well before the command ends
    expect(await fx.raw.hget('orders', owner(1))).toBe('1');
    expect(await h.done).toBe(0);
    expect(h.stdout.text).toBe('done\n');
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('a lock lost mid-run (raw DEL) stops the command with SIGTERM and returns 5', async () => {
    const script = `process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(0); }); ${WAIT_FOREVER}`;
    const h = hold('orders', '--watchdog', '600ms', ...node(script));
    await h.waitFor(/^ready$/m);
    await fx.raw.del('orders');
    expect(await h.done).toBe(5);
    expect(h.stdout.text).toBe('ready\ngot SIGTERM\n');
    expect(h.stderr.text).toMatch(/lost "orders": .*\n.*stopping pid \d+ with SIGTERM: lock lost\n.*pid \d+ exited with code 0\n$/);
    for (const pid of childPids) expect(alive(pid)).toBe(false);
  });

  it('SIGKILLs a command that ignores SIGTERM after --kill-grace', async () => {
    const script = `process.on('SIGTERM', () => console.log('ignoring SIGTERM')); ${WAIT_FOREVER}`;
    const h = hold('orders', '--watchdog', '600ms', '--kill-grace', '400ms', ...node(script));
    await h.waitFor(/^ready$/m);
    await fx.raw.del('orders');
    expect(await h.done).toBe(5);
    // The grace, on hold's own clock (when this test saw the lines says nothing on a busy machine).
    const stopping = h.events.filter((e) => e.type === 'child-stopping');
    expect(stopping.map((e) => e.signal)).toEqual(['SIGTERM', 'SIGKILL']);
    // Timers may fire up to a millisecond early by Date.now()'s count.
    expect(stopping[1]!.at - stopping[0]!.at).toBeGreaterThanOrEqual(395);
    expect(h.stdout.text).toContain('ignoring SIGTERM');
    expect(h.stderr.text).toMatch(/stopping pid \d+ with SIGKILL: lock lost\n.*pid \d+ was killed by SIGKILL\n$/);
    for (const pid of childPids) expect(alive(pid)).toBe(false);
  });

  it('a fixed lease running out under the command counts as lost: the command is stopped, exit 5', async () => {
    const h = hold('orders', '--lease', '500ms', ...node(WAIT_FOREVER));
    expect(await h.done).toBe(5);
    expect(h.stderr.text).toMatch(/lost "orders": its fixed lease ran out while the command was still running/);
    expect(h.stderr.text).toMatch(/was killed by SIGTERM\n$/);
  });

  it('Ctrl-C stops the command first, then releases, and returns 130', async () => {
    const h = hold('orders', '--watchdog', '600ms', ...node(WAIT_FOREVER));
    await h.waitFor(/^ready$/m);
    h.interrupt();
    expect(await h.done).toBe(130);
    // In this order; the watchdog may renew in between (the lock is kept until the command is gone).
    expect(h.stderr.text).toMatch(/stopping pid \d+ with SIGTERM: interrupted\n[\s\S]*was killed by SIGTERM\n[\s\S]*released "orders" .*\(interrupted\)\n$/);
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('a command that cannot start releases the lock and returns 127', async () => {
    const h = hold('orders', '--', 'no-such-command-here');
    expect(await h.done).toBe(127);
    expect(h.stderr.text).toMatch(/cannot run "no-such-command-here": command not found/);
    expect(await fx.raw.exists('orders')).toBe(0);
  });
});
