// A sandbox started inside the REPL: it runs the --redis-server binary given, it is attached
// (commands go to it, its nodes are on the panel), and `exit` asks before stopping it; nothing of
// it outlives the test.
import { afterAll, describe, expect, it } from 'vitest';
import { rawClient } from '../helpers/lock-env.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { serverWrapper } from '../helpers/server-wrapper.js';
import { shutdownRepl } from '../../src/repl/exit.js';
import { createSession } from '../../src/repl/start.js';
import { urlTarget } from '../../src/repl/target.js';
import { isAlive } from '../../src/sandbox/procfs.js';
import { loadSandbox } from '../../src/sandbox/index.js';
import type { ReplSession } from '../../src/repl/session.js';

const env = tempStateEnv();
const NAME = 'repl-test';
let session: ReplSession | undefined;
const pids: number[] = [];
// The server binary `sandbox up --redis-server` names, as on the CLI: it counts its starts.
const wrapper = serverWrapper();

afterAll(async () => {
  await session?.close();
  // Whatever the test did, the sandbox goes: by its state file, then by pid.
  await loadSandbox(NAME, { env }).then((s) => s.stop(), () => undefined);
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  wrapper.remove();
}, 30_000);

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${session!.getSnapshot().output.map((l) => l.text).join('\n')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a sandbox started in the REPL', () => {
  it('is attached, takes the commands, shows its nodes, and is stopped at exit when the user says so', async () => {
    // Nothing listens on this URL: everything below must go to the sandbox.
    session = await createSession(env, { target: urlTarget('redis://127.0.0.1:1'), intervalMs: 100 });
    const s = session;
    const text = (): string => s.getSnapshot().output.map((l) => l.text).join('\n');
    s.submit(`sandbox up --name ${NAME} --redis-server ${wrapper.path}`);
    await until(() => text().includes(`attached sandbox "${NAME}" (single)`), 'the sandbox attached');
    expect(wrapper.starts()).toBe(1);
    const handle = s.attachedSandbox!;
    pids.push(...handle.nodes.map((n) => n.pid));
    expect(s.getSnapshot().target).toBe(`sandbox:${NAME}`);
    await until(() => s.getSnapshot().sandbox?.status?.nodes[0]?.role === 'primary', 'the node on the panel');

    s.submit('acquire in-sandbox --lease 20s');
    await until(() => text().includes('acquired "in-sandbox"'), 'the acquire');
    const redis = rawClient({ port: handle.nodes[0]!.port });
    expect(await redis.exists('in-sandbox')).toBe(1);

    s.submit('exit');
    await until(() => s.getSnapshot().question === `A holds "in-sandbox" on sandbox:${NAME}: release and leave? [y/N]`, 'the release question');
    s.submit('y');
    await until(() => s.getSnapshot().question === `stop sandbox "${NAME}", started in this REPL? [y/N]`, 'the sandbox question');
    expect(await redis.exists('in-sandbox')).toBe(0);
    redis.disconnect();
    s.submit('y');
    expect(await s.finished).toBe(0);
    expect(text()).toContain(`stopped sandbox "${NAME}"`);
    expect(pids.some(isAlive)).toBe(false);
  }, 40_000);

  // Issue 12: SIGTERM / SIGHUP (startRepl calls shutdownRepl) left a sandbox started here running.
  it('SIGTERM / SIGHUP: the sandbox started here is stopped without asking, and the lock released', async () => {
    await session?.close();
    session = await createSession(env, { target: urlTarget('redis://127.0.0.1:1'), intervalMs: 100 });
    const s = session;
    const text = (): string => s.getSnapshot().output.map((l) => l.text).join('\n');
    s.submit(`sandbox up --name ${NAME}`);
    await until(() => text().includes(`attached sandbox "${NAME}" (single)`), 'the sandbox attached');
    const nodePids = s.attachedSandbox!.nodes.map((n) => n.pid);
    pids.push(...nodePids);
    s.submit('acquire on-term --lease 20s');
    await until(() => text().includes('acquired "on-term"'), 'the acquire');
    await shutdownRepl(s);
    expect(await s.finished).toBe(130);
    expect(s.getSnapshot().question).toBeUndefined();
    expect(nodePids.some(isAlive)).toBe(false);
    await expect(loadSandbox(NAME, { env })).rejects.toThrow(/no sandbox/);
  }, 40_000);
});
