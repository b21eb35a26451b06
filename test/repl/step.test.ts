// `step <scenario>`: a scenario variant run one step per Enter on its own sandbox, the panel
// attached to it; `continue` runs the rest and prints the verdict; Ctrl-C stops it; nothing of the
// scenario's sandbox outlives the run.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReplSession } from '../../src/repl/session.js';
import { createSession } from '../../src/repl/start.js';
import { urlTarget } from '../../src/repl/target.js';
import { isAlive } from '../../src/sandbox/procfs.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

let server: RedisServer;
const sessions: ReplSession[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
});
afterAll(async () => {
  await server.stop();
});

async function open() {
  const session = await createSession(tempStateEnv(), { target: urlTarget(server.url), intervalMs: 100 });
  sessions.push(session);
  const text = (): string => session.getSnapshot().output.map((l) => l.text).join('\n');
  const until = async (check: () => boolean, what: string, ms = 15_000): Promise<void> => {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${text()}\npanel: ${JSON.stringify(session.getSnapshot().panel)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const waitingAt = (n: number) => until(() => session.getSnapshot().stepping?.next === n && session.getSnapshot().stepping?.waiting !== undefined, `step ${n} waiting`);
  return { session, text, until, waitingAt };
}

describe('step <scenario>', () => {
  it('runs one step per Enter with the sandbox on the panel, continue runs the rest, then everything is stopped', async () => {
    const { session, text, until, waitingAt } = await open();
    session.submit('step expired-lease-misdeletion fixed --speed 0.25');
    await waitingAt(1);
    const screen = session.getSnapshot();
    expect(screen.stepping).toMatchObject({ scenario: 'expired-lease-misdeletion', variant: 'fixed', total: 13 });
    expect(screen.stepping!.waiting).toMatch(/0\.00 s\s+A\s+acquire/);
    expect(screen.target).toMatch(/^sandbox:scenario-expired-lease/);
    expect(screen.panel.watched).toEqual(['orders']);
    const pids = session.attachedSandbox!.nodes.map((n) => n.pid);
    expect(pids.every(isAlive)).toBe(true);
    // Nothing runs until Enter.
    await new Promise((r) => setTimeout(r, 300));
    expect(text()).not.toMatch(/A\s+acquire ok/);

    session.submit('');
    await waitingAt(2);
    // A's reply arrives when it arrives (a busy machine): the line follows once it has.
    await until(() => /A\s+acquire ok/.test(text()), 'A acquire ok');
    // The panel reads the scenario's lock on the scenario's sandbox: A's token holds it now.
    await until(() => (session.getSnapshot().panel.views.orders?.holders.length ?? 0) === 1, 'the panel showing the lock held');

    session.submit('continue');
    // Step 2 was due 80 ms after step 1 and waited for `continue`: the run says the prompt held a
    // step past what its race tolerates, or (had it come in time) gives the verdict; never a wrong one.
    await until(() => /verdict: expected safe, found safe: (as expected|INCONCLUSIVE\n {2}\? inconclusive: step \d+ \([^)]+\) waited)/.test(text()), 'the verdict');
    expect(text()).not.toContain('NOT AS EXPECTED');
    await until(() => session.getSnapshot().stepping === undefined && session.getSnapshot().target === `127.0.0.1:${server.port}`, 'the target back');
    expect(pids.some(isAlive)).toBe(false);
    expect(session.attachedSandbox).toBeUndefined();
  }, 40_000);

  it('Ctrl-C stops the run and its sandbox; bad names are errors and the session goes on', async () => {
    const { session, text, until, waitingAt } = await open();
    session.submit('step no-such-scenario');
    await until(() => text().includes('no shipped scenario named "no-such-scenario"'), 'the not-found error');
    session.submit('step expired-lease-misdeletion nope');
    await until(() => text().includes('has no variant "nope": unsafe, fixed'), 'the variant error');
    session.submit('continue');
    await until(() => text().includes('no scenario is being stepped through'), 'continue refused');
    session.submit('step expired-lease-misdeletion');
    await waitingAt(1);
    const pids = session.attachedSandbox!.nodes.map((n) => n.pid);
    session.submit('');
    await waitingAt(2);
    expect(session.interrupt()).toBe(true);
    await until(() => text().includes('stopped expired-lease-misdeletion (unsafe)'), 'the run stopped');
    await until(() => session.getSnapshot().stepping === undefined, 'stepping over');
    await until(() => !pids.some(isAlive), 'the sandbox stopped');
  }, 40_000);
});
