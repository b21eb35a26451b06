// Issue 12, item 12: hostile holder, token and key strings (an OSC title change, a clear screen, a
// C1 CSI, a right-to-left override, a colour) written into a real redis-server, then read back
// through every text and live output: one-shot commands (text and --json), the hold live view,
// inspect --watch and the REPL panel (ink, through ink-testing-library). No raw control byte may
// come out; each must be shown escaped.
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Redis } from 'ioredis';
import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fairQueueKey, fairTimeoutKey } from '../../src/core/names.js';
import type { HoldEvent } from '../../src/core/hold-events.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { connect } from '../../src/redis/connection.js';
import { HoldApp } from '../../src/ui/HoldApp.js';
import { createHoldStore } from '../../src/ui/hold-store.js';
import { InspectApp } from '../../src/ui/InspectApp.js';
import { createInspectStore } from '../../src/ui/inspect-store.js';
import { InspectKey } from '../../src/ui/InspectKey.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Everything a terminal would act on. Tabs and newlines are layout; with NO_COLOR nothing of ours
// writes an escape sequence, so any ESC at all came from the data.
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\x9b31m\u202egnp.exe\x1b[31m';

const env = tempStateEnv({ NO_COLOR: '1' });
let server: RedisServer;
let raw: Redis;
const TOKEN_KEY = 'inj-token';
const HOSTILE_KEY = `inj-key${HOSTILE}`;
const FAIR_KEY = 'inj-fair';
const OWNER = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';

beforeAll(async () => {
  server = await startRedis();
  raw = rawClient(server);
  // A token lock whose holder (its value) is hostile, a fair lock whose queue holds a hostile
  // waiter, and a Redisson lock whose holder field is hostile.
  await raw.set(TOKEN_KEY, HOSTILE, 'PX', 600_000);
  await raw.hset(FAIR_KEY, OWNER, 1);
  await raw.pexpire(FAIR_KEY, 600_000);
  await raw.rpush(fairQueueKey(FAIR_KEY), `${HOSTILE}:${'w'.repeat(40)}${HOSTILE}`);
  await raw.zadd(fairTimeoutKey(FAIR_KEY), Date.now() + 600_000, `${HOSTILE}:${'w'.repeat(40)}${HOSTILE}`);
  await raw.hset('inj-hash', HOSTILE, 1);
  await raw.pexpire('inj-hash', 600_000);
}, 60_000);

afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

const expectClean = (text: string): void => {
  expect(text).not.toMatch(RAW_CONTROL);
};

describe('one-shot text and --json', () => {
  const runs: readonly (readonly string[])[] = [
    ['acquire', TOKEN_KEY, '--kind', 'token'],
    ['acquire', TOKEN_KEY, '--kind', 'token', '--json'],
    ['release', TOKEN_KEY, '--kind', 'token', '--owner', 'not-the-holder'],
    ['renew', TOKEN_KEY, '--kind', 'token', '--owner', 'not-the-holder', '--lease', '5s'],
    ['hold', TOKEN_KEY, '--kind', 'token'],
    ['hold', TOKEN_KEY, '--kind', 'token', '--json'],
    ['inspect', TOKEN_KEY, FAIR_KEY, 'inj-hash'],
    ['inspect', TOKEN_KEY, FAIR_KEY, 'inj-hash', '--json'],
    ['ls'],
    ['ls', '--json'],
    ['doctor'],
    ['doctor', '--json'],
    ['acquire', HOSTILE_KEY, '--lease', '5s'],
    ['acquire', HOSTILE_KEY, '--lease', '5s', '--owner', `${OWNER.slice(0, -1)}9`],
    ['inspect', HOSTILE_KEY],
    ['release', HOSTILE_KEY],
    ['acquire', TOKEN_KEY, '--kind', 'token', '--owner', HOSTILE],
    ['force-unlock', 'inj-hash'],
  ];
  it.each(runs.map((r) => [r.join(' ').replace(RAW_CONTROL, '?'), r] as const))('%s', async (_name, args) => {
    const { stdout, stderr } = await runCli([...args, '--url', server.url], env);
    expectClean(stdout);
    expectClean(stderr);
    expect(stdout + stderr).not.toBe('');
  }, 30_000);

  it('the "held by" line shows the holder escaped, readable', async () => {
    const { code, stderr } = await runCli(['acquire', TOKEN_KEY, '--kind', 'token', '--url', server.url], env);
    expect(code).toBe(5);
    expect(stderr).toContain('is held by \\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202egnp.exe\\x1b[31m for another');
  });
});

describe('live views (ink) fed from the real server', () => {
  let unmount: (() => void) | undefined;
  afterEach(() => unmount?.());

  async function views(keys: string[]) {
    const conn = await connect(parseEndpointUrl(server.url), { mode: 'one-shot' });
    try {
      return await inspectKeys(conn, keys);
    } finally {
      await conn.close();
    }
  }

  it('inspect --watch: holders, queue, log lines and keys', async () => {
    const keys = [TOKEN_KEY, FAIR_KEY, 'inj-hash', HOSTILE_KEY];
    const store = createInspectStore({ keys, target: server.url, intervalMs: 1000 });
    const view = render(<InspectApp store={store} tickMs={5} />);
    unmount = view.unmount;
    const now = Date.now();
    store.poll({ type: 'ok', at: now, tookMs: 1, tick: 1, snapshot: await views(keys) });
    await raw.set(HOSTILE_KEY, HOSTILE, 'PX', 60_000); // a change: the log gets a line naming it
    store.poll({ type: 'ok', at: now + 10, tookMs: 1, tick: 2, snapshot: await views(keys) });
    store.poll({ type: 'error', at: now + 20, error: `boom ${HOSTILE}`, retryInMs: 1000, tick: 3 } as never);
    await vi.waitFor(() => expect(view.lastFrame()).toContain('pwned'), { timeout: 10_000, interval: 10 });
    const frame = view.lastFrame() ?? '';
    expectClean(frame);
    await raw.del(HOSTILE_KEY);
  });

  it('narrow columns: truncating a hostile fair-queue entry never cuts an escape into raw bytes', async () => {
    for (const columns of [20, 33, 47, 80]) {
      const [fair] = await views([FAIR_KEY]);
      const view = render(<InspectKey view={fair!} elapsedMs={0} />);
      Object.defineProperty(view.stdout, 'columns', { value: columns });
      view.rerender(<InspectKey view={fair!} elapsedMs={0} />);
      expectClean(view.lastFrame() ?? '');
      view.unmount();
    }
  });

  it('hold live view: the holder that refused us, from the real command\'s events', async () => {
    const { stdout } = await runCli(['hold', TOKEN_KEY, '--kind', 'token', '--json', '--url', server.url], env);
    const events = stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; at: string });
    const store = createHoldStore({ key: TOKEN_KEY, kind: 'token', owner: HOSTILE });
    for (const { event, at, ...fields } of events) store.emit({ ...fields, type: event, at: Date.parse(at) } as unknown as HoldEvent);
    const view = render(<HoldApp store={store} tickMs={5} />);
    unmount = view.unmount;
    await vi.waitFor(() => expect(view.lastFrame()).toContain('pwned'), { timeout: 10_000, interval: 10 });
    expectClean(view.lastFrame() ?? '');
  });
});
