// The REPL follows what its commands did from their typed outcomes, on a real redis-server: a
// background hold's renewals reach the panel without `--json` put into its argv (nor NDJSON on
// screen), a held command's own output still shows, a force-unlock and a release take locks off
// the panel at once, and hints do not repeat the connection options the REPL adds itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/commands/context.js';
import { commandTree } from '../../src/commands/completion-tree.js';
import { buildProgram, runProgram } from '../../src/cli/program.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { ReplSession } from '../../src/repl/session.js';
import { urlTarget } from '../../src/repl/target.js';
import { loadSandbox } from '../../src/sandbox/index.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

let server: RedisServer;
let session: ReplSession;
const env = tempStateEnv();
const SANDBOX = 'outcomes-test';
/** Every argv the REPL ran, as the program got it. */
const argvs: string[][] = [];

beforeAll(async () => {
  server = await startRedis();
  const quiet = { write: () => true };
  const tree = commandTree(await buildProgram({ stdout: quiet, stderr: quiet, env, exitCode: 0 }, COMMANDS));
  const run = (argv: readonly string[], ctx: RunContext): Promise<number> => {
    argvs.push([...argv]);
    return runProgram(argv, ctx, COMMANDS);
  };
  session = new ReplSession({ run, tree, env, target: urlTarget(server.url), intervalMs: 100 });
  session.start();
});
afterAll(async () => {
  await session?.close();
  // Whatever the test did, the sandbox goes (by its state file: the supervisor checks each pid).
  await loadSandbox(SANDBOX, { env }).then(
    (s) => s.stop(),
    () => undefined,
  );
  await server.stop();
}, 30_000);

const lines = (): string[] => session.getSnapshot().output.map((l) => l.text);

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${lines().join('\n')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the REPL follows typed outcomes', () => {
  it("shows a hold's renewals on the panel with no --json put into hold's argv", async () => {
    session.submit('hold renewing --watchdog 3s');
    await until(
      () => (session.getSnapshot().held.find((h) => h.key === 'renewing')?.renewals ?? 0) >= 2,
      'two renewals on the panel',
    );
    const held = session.getSnapshot().held.find((h) => h.key === 'renewing')!;
    expect(held).toMatchObject({ client: 'A', via: 'hold', jobId: 1, mode: 'watchdog', leaseMs: 3000 });
    const hold = argvs.find((a) => a[0] === 'hold')!;
    // The REPL hands hold its endpoint (RunContext.target), not connection words spliced into argv.
    expect(hold).toEqual(['hold', 'renewing', '--watchdog', '3s']);
    expect(hold).not.toContain('--json');
    // The events are said in words, once each, renewals not at all, and no NDJSON reaches the screen.
    expect(lines().filter((l) => l.startsWith('[%1 A] acquired "renewing" (reentrant)'))).toHaveLength(1);
    expect(lines().some((l) => l.includes('renewed "renewing"') || l.includes('{"event"'))).toBe(false);
    session.submit('release renewing');
    await until(
      () => lines().some((l) => /^\[%1 A\] released "renewing" after .* \(interrupted\)$/.test(l)),
      'the hold releasing',
    );
    await until(() => !session.getSnapshot().held.some((h) => h.key === 'renewing'), 'the lock off the panel');
  });

  it("passes a held command's own output through, with the hold's events in words around it", async () => {
    session.submit("as B hold child-key -- sh -c 'echo hello from the child'");
    await until(() => lines().some((l) => /^\[%2\] done: /.test(l)), 'the hold to end with its command');
    const out = lines();
    const child = out.indexOf('[%2 B] hello from the child');
    expect(child).toBeGreaterThan(out.findIndex((l) => l.startsWith('[%2 B] acquired "child-key"')));
    expect(out.findIndex((l) => l.startsWith('[%2 B] released "child-key"'))).toBeGreaterThan(child);
  });

  it('a hold given --json by the user prints its NDJSON as it is, and the panel still follows it', async () => {
    session.submit('hold json-key --json --watchdog 3s');
    await until(
      () => (session.getSnapshot().held.find((h) => h.key === 'json-key')?.renewals ?? 0) >= 1,
      'a renewal on the panel',
    );
    const id = session.getSnapshot().held.find((h) => h.key === 'json-key')!.jobId!;
    const events = lines()
      .filter((l) => l.startsWith(`[%${id} A] {`))
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))).event);
    expect(events.slice(0, 3)).toEqual(['acquiring', 'acquired', 'renewed']);
    expect(lines().some((l) => l.startsWith(`[%${id} A] acquired "json-key"`))).toBe(false);
    session.submit('release json-key');
    await until(() => !session.getSnapshot().held.some((h) => h.key === 'json-key'), 'the hold ended');
  });

  it('a force-unlock takes the lock off the panel at once, before any read says so', async () => {
    session.submit('acquire forced --lease 30s');
    await until(() => session.getSnapshot().held.some((h) => h.key === 'forced'), 'the acquire on the panel');
    session.submit('as B force-unlock forced --yes');
    await until(() => lines().some((l) => l.startsWith('force-unlocked "forced"')), 'the force-unlock');
    expect(session.state.acquired.some((l) => l.key === 'forced')).toBe(false);
  });

  it('hints leave out the connection options the REPL adds, and keep ones typed on the line', async () => {
    session.submit('acquire hinted --lease 30s');
    await until(() => lines().some((l) => l.startsWith('release it with:') && l.includes('hinted')), 'the hint');
    expect(lines().filter((l) => l.includes('release hinted'))).toEqual(['release it with: release hinted']);
    session.submit(`acquire typed --lease 30s -u ${server.url}`);
    await until(() => lines().some((l) => l.includes('release typed')), 'the second hint');
    expect(lines().filter((l) => l.includes('release typed'))).toEqual([
      `release it with: release typed -u ${server.url}`,
    ]);
    session.submit('release hinted');
    session.submit('release typed');
    await until(
      () => !session.getSnapshot().held.some((h) => h.key === 'hinted' || h.key === 'typed'),
      'both released',
    );
    const redis = rawClient(server);
    expect(await redis.exists('hinted', 'typed')).toBe(0);
    redis.disconnect();
  });

  it('`repl` inside the REPL is one usage error, and the session goes on', async () => {
    const ran = argvs.length;
    session.submit('repl --clients X');
    await until(() => lines().includes('already in the REPL'), 'the error');
    expect(argvs.length).toBe(ran);
  });

  it('sandbox up attaches the sandbox it reports, and sandbox down sends commands back', async () => {
    session.submit(`sandbox up --name=${SANDBOX}`);
    await until(() => session.getSnapshot().target === `sandbox:${SANDBOX}`, 'the sandbox attached', 30_000);
    expect(session.state.startedSandboxes).toEqual([SANDBOX]);
    expect(argvs.find((a) => a[0] === 'sandbox')).toEqual(['sandbox', 'up', `--name=${SANDBOX}`]);
    session.submit(`sandbox down ${SANDBOX}`);
    await until(
      () => lines().includes(`sandbox "${SANDBOX}" is down: commands go to 127.0.0.1:${server.port} again`),
      'the detach',
      30_000,
    );
    expect(session.getSnapshot().target).toBe(`127.0.0.1:${server.port}`);
    expect(session.attachedSandbox).toBeUndefined();
    expect(session.state.startedSandboxes).toEqual([]);
  });
});
