// The REPL never mixes servers: a lock taken on one server, then a sandbox started (and attached)
// in the same session. The panel names the server of every held lock and never reads the first
// server's lock from the sandbox; exit names where each lock lives and releases it there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createSession } from '../../src/repl/start.js';
import { urlTarget } from '../../src/repl/target.js';
import type { ReplSession } from '../../src/repl/session.js';
import { isAlive } from '../../src/sandbox/procfs.js';
import { loadSandbox } from '../../src/sandbox/index.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';

const env = tempStateEnv();
const NAME = 'repl-apart';
let server: RedisServer;
let raw: Redis;
let session: ReplSession | undefined;
const pids: number[] = [];

beforeAll(async () => {
  server = await startRedis();
  raw = rawClient(server);
});
afterAll(async () => {
  await session?.close();
  await loadSandbox(NAME, { env }).then((s) => s.stop(), () => undefined);
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  raw?.disconnect();
  await server?.stop();
}, 30_000);

/** Polls until `check` holds; on time-out the error carries what the REPL printed. */
async function until(check: () => boolean, what: string): Promise<void> {
  await eventually(async () => check(), 20_000).catch(() => {
    throw new Error(`timed out waiting for ${what}; output:\n${session!.getSnapshot().output.map((l) => l.text).join('\n')}`);
  });
}

describe('the REPL across two servers', () => {
  it('names the server of each held lock and releases each on its own server at exit', async () => {
    session = await createSession(env, { target: urlTarget(server.url), intervalMs: 100 });
    const s = session;
    const here = `127.0.0.1:${server.port}`;
    const text = (): string => s.getSnapshot().output.map((l) => l.text).join('\n');
    s.submit('acquire pay --lease 30s');
    await until(() => text().includes('acquired "pay"'), 'the acquire');
    await until(() => s.getSnapshot().held.some((l) => l.key === 'pay' && l.where === here), 'pay held on the first server');

    s.submit(`sandbox up --name ${NAME}`);
    await until(() => text().includes(`attached sandbox "${NAME}" (single)`), 'the sandbox attached');
    const handle = s.attachedSandbox!;
    pids.push(...handle.nodes.map((n) => n.pid));
    const onSandbox = rawClient({ port: handle.nodes[0]!.port });
    try {
      s.submit('acquire cart --lease 30s');
      await until(() => text().includes('acquired "cart"'), 'the acquire on the sandbox');
      await until(() => s.getSnapshot().held.some((l) => l.key === 'cart' && l.where === `sandbox:${NAME}`), 'cart held on the sandbox');
      // pay is still listed, under its own server, and not read from the sandbox (where no pay exists).
      const snap = s.getSnapshot();
      expect(snap.heldElsewhere.map((l) => [l.key, l.where])).toEqual([['pay', here]]);
      expect(snap.held.map((l) => l.key)).toEqual(['cart']);
      expect(s.panelKeys()).not.toContain('pay');

      s.submit('exit');
      await until(() => s.getSnapshot().question === `A holds "cart" on sandbox:${NAME}, A holds "pay" on ${here}: release and leave? [y/N]`, 'the release question naming both servers');
      s.submit('y');
      await until(() => s.getSnapshot().question === `stop sandbox "${NAME}", started in this REPL? [y/N]`, 'the sandbox question');
      // Each lock was released on the server it was taken on.
      expect(await raw.exists('pay')).toBe(0);
      expect(await onSandbox.exists('cart')).toBe(0);
      expect(text()).not.toMatch(/not owned|no longer ours|exit 5/);
      s.submit('y');
      expect(await s.finished).toBe(0);
    } finally {
      onSandbox.disconnect();
    }
  }, 60_000);
});
