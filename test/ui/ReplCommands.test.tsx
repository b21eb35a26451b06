// The REPL's own commands at the keyboard (ink-testing-library, real redis-servers and sandboxes):
// errors and help for mistyped names, connect, attach, unwatch, and leaving a sandbox running.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReplSession } from '../../src/repl/session.js';
import { urlTarget } from '../../src/repl/target.js';
import { loadSandbox } from '../../src/sandbox/index.js';
import { isAlive } from '../../src/sandbox/procfs.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, probe } from '../helpers/sandbox.js';
import { mountRepl, unmountAll } from './repl-harness.js';

let first: RedisServer;
let second: RedisServer;
let redis1: ReturnType<typeof rawClient>;
let redis2: ReturnType<typeof rawClient>;

beforeAll(async () => {
  [first, second] = await Promise.all([startRedis(), startRedis()]);
  redis1 = rawClient(first);
  redis2 = rawClient(second);
});
afterEach(unmountAll);
afterAll(async () => {
  redis1.disconnect();
  redis2.disconnect();
  await Promise.all([first.stop(), second.stop()]);
});

const mount = (env = tempStateEnv()) => mountRepl(urlTarget(first.url), env);

/** What the session printed for a typed line (or a question and its answer): the lines after its echo, up to the next echo. */
function printedFor(session: ReplSession, line: string): { text: string; tone: string }[] {
  const output = session.getSnapshot().output;
  const at = output.findLastIndex((l) => l.tone === 'echo' && (l.text === line || l.text.endsWith(`> ${line}`)));
  if (at < 0) return [];
  const end = output.findIndex((l, i) => i > at && l.tone === 'echo');
  return output.slice(at + 1, end < 0 ? undefined : end).map(({ text, tone }) => ({ text, tone }));
}

describe('mistyped commands and help', () => {
  it('an unknown command is one error line naming the nearest REPL or CLI command, without redlock-cli: or exit 2', async () => {
    const r = await mount();
    const typos = [
      ['wacth', "unknown command 'wacth' (Did you mean watch?)"],
      ['clinets', "unknown command 'clinets' (Did you mean clients?)"],
      ['unwach', "unknown command 'unwach' (Did you mean unwatch?)"],
      ['inspcet orders', "unknown command 'inspcet' (Did you mean inspect?)"],
      ['as B wacth orders', "unknown command 'wacth' (Did you mean watch?)"],
      ['frobnicate', "unknown command 'frobnicate': help lists the commands"],
      ['help wach', "unknown command 'wach' (Did you mean watch?)"],
      ['help sandbox uup', "unknown command 'sandbox uup' (Did you mean sandbox up?)"],
      // A CLI command's own usage error reads the same way: no prefix, no "exit 2" after it.
      ['acquire k --leese 5s', "unknown option '--leese' (Did you mean --lease?)"],
    ] as const;
    for (const [line, error] of typos) {
      r.enter(line);
      await r.shows(error);
    }
    r.enter('clients');
    await r.shows('holds nothing');
    for (const [line, error] of typos) expect(printedFor(r.session, line), line).toEqual([{ text: error, tone: 'error' }]);
    expect(r.frame()).not.toContain('redlock-cli:');
    expect(r.frame()).not.toMatch(/^exit 2$/m);
    // A command that ran and failed still says how it ended: the code a script would get.
    // (release of a key nobody holds: not found, exit 4)
    r.enter('release never-taken');
    await r.shows('exit 4');
  });

  it("help <REPL command> shows its usage, what it does and examples; help <group> <command> that command's --help", async () => {
    const r = await mount();
    r.enter('help watch');
    await r.shows('  watch orders stock --kind fair');
    expect(printedFor(r.session, 'help watch').map((l) => l.text)).toEqual([
      'Usage: watch <key...> [--kind k]',
      '',
      'show keys on the panel (one round trip per tick for all of them); --kind reads them as that kind, like inspect --kind',
      '',
      'Examples:',
      '  watch orders',
      '  watch orders stock --kind fair',
    ]);
    r.enter('help as');
    await r.shows('Usage: as <client> <command...>');
    expect(printedFor(r.session, 'help as').map((l) => l.text)).toContain('  as B acquire orders --lease 30s');
    r.enter('help sandbox up');
    // The CLI's help, with its commands as they are typed here (no program name in front).
    await r.shows('Usage: sandbox up [options]');
    await r.promptIs('');
    const up = printedFor(r.session, 'help sandbox up').map((l) => l.text);
    expect(up).toContain('  sandbox up --topology redlock --nodes 5 --fake-clock');
    expect(up).not.toContain('Usage: sandbox [options] [command]');
    // The REPL's list names its own help once, not the CLI's beside it.
    r.enter('help');
    await r.shows('REPL commands:');
    await r.promptIs('');
    expect(printedFor(r.session, 'help').filter((l) => /^ {2}help /.test(l.text))).toHaveLength(1);
  });
});

describe('connect and unwatch', () => {
  it('connect <url> sends commands and the panel to another server; a bad URL changes nothing', async () => {
    const r = await mount();
    r.enter('connect http://127.0.0.1:1');
    await r.shows('invalid Redis URL scheme "http:": use redis:// or rediss://');
    expect(r.session.state.target.target.label).toBe(`127.0.0.1:${first.port}`);
    r.enter(`connect redis://127.0.0.1:${second.port}`);
    await r.shows(`commands go to 127.0.0.1:${second.port} now`);
    await r.until((f) => new RegExp(`^A@127\\.0\\.0\\.1:${second.port}>`, 'm').test(f), 'the prompt naming the new server');
    r.enter('watch moved');
    r.enter('acquire moved --lease 20s');
    await r.shows('acquired "moved"');
    // Hints name the command as it is typed here, not as in a shell.
    await r.shows('release it with: release moved');
    expect(printedFor(r.session, 'acquire moved --lease 20s').map((l) => l.text).join('\n')).not.toContain('redlock-cli release');
    // The panel reads the new server: it shows A holding the key there.
    await r.until((f) => f.includes('A holds it') && f.includes(`● 127.0.0.1:${second.port} every`), 'the panel on the second server');
    expect(await redis2.exists('moved')).toBe(1);
    expect(await redis1.exists('moved')).toBe(0);
    r.enter('exit');
    await r.shows(`A holds "moved" on 127.0.0.1:${second.port}: release and leave? [y/N]`);
    r.enter('y');
    expect(await r.session.finished).toBe(0);
    expect(await redis2.exists('moved')).toBe(0);
  });

  it('unwatch takes keys off the panel, all of them without arguments', async () => {
    const r = await mount();
    r.enter('watch alpha beta');
    await r.until((f) => /alpha/.test(r.panel()) && /beta/.test(r.panel()) && f.includes('free: the key does not exist'), 'both keys on the panel');
    r.enter('unwatch alpha');
    await r.until(() => !r.panel().includes('alpha'), 'alpha off the panel');
    expect(r.panel()).toContain('beta');
    expect(r.session.state.panel.watched).toEqual(['beta']);
    r.enter('unwatch');
    await r.until(() => r.panel() === '', 'no panel left');
    expect(r.session.state.panel.watched).toEqual([]);
    r.enter('watch');
    await r.shows('watching nothing: watch <key...>');
  });
});

describe('sandboxes', () => {
  const env = tempStateEnv();
  const OUTSIDE = 'repl-attach';
  const INSIDE = 'repl-keep';
  const pids: number[] = [];
  const nodesOf = async (name: string) => (await loadSandbox(name, { env })).nodes;

  beforeAll(async () => {
    const up = await runCli(['sandbox', 'up', '--name', OUTSIDE], env);
    expect(up.code, up.stderr).toBe(0);
    pids.push(...(await nodesOf(OUTSIDE)).map((n) => n.pid));
  }, 30_000);
  afterAll(async () => {
    // Whatever the tests did, the sandboxes go: by their state files, then by pid.
    for (const name of [OUTSIDE, INSIDE]) await loadSandbox(name, { env }).then((s) => s.stop(), () => undefined);
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }, 30_000);

  it('attach <sandbox> sends commands to one started outside and shows its node; exit leaves it running without asking', async () => {
    const [node] = await nodesOf(OUTSIDE);
    const r = await mount(env);
    r.enter(`attach ${OUTSIDE}`);
    await r.shows(`attached sandbox "${OUTSIDE}" (single): commands go to 127.0.0.1:${node!.port}; its nodes are on the panel`);
    await r.until((f) => new RegExp(`^A@sandbox:${OUTSIDE}>`, 'm').test(f), 'the prompt naming the sandbox');
    await r.until(() => r.panel().includes(`sandbox ${OUTSIDE}`) && /n1 +primary +running/.test(r.panel()), 'its node on the panel');
    r.enter('acquire in-sandbox --lease 20s');
    await r.shows('acquired "in-sandbox"');
    const onNode = rawClient({ port: node!.port });
    try {
      expect(await onNode.exists('in-sandbox')).toBe(1);
      expect(await redis1.exists('in-sandbox')).toBe(0);
      r.enter('exit');
      await r.shows(`A holds "in-sandbox" on sandbox:${OUTSIDE}: release and leave? [y/N]`);
      r.enter('y');
      expect(await r.session.finished).toBe(0);
      expect(await onNode.exists('in-sandbox')).toBe(0);
    } finally {
      onNode.disconnect();
    }
    // Not started here: not offered for stopping, and still up.
    expect(r.frame()).not.toContain('stop sandbox');
    expect(await probe(node!.port)).toBe('PONG');
  }, 30_000);

  it('exit: answering no to stopping a sandbox the REPL started leaves it running; the test then stops it', async () => {
    const r = await mount(env);
    r.enter(`sandbox up --name ${INSIDE}`);
    await r.shows(`attached sandbox "${INSIDE}" (single)`, 20_000);
    const nodes = r.session.attachedSandbox!.nodes;
    pids.push(...nodes.map((n) => n.pid));
    r.enter('exit');
    await r.shows(`stop sandbox "${INSIDE}", started in this REPL? [y/N]`);
    r.enter('n');
    expect(await r.session.finished).toBe(0);
    expect(printedFor(r.session, `stop sandbox "${INSIDE}", started in this REPL? [y/N] n`).map((l) => l.text)).toEqual([
      `sandbox "${INSIDE}" keeps running: redlock-cli sandbox down --name ${INSIDE} stops it`,
    ]);
    for (const n of nodes) {
      expect(isAlive(n.pid)).toBe(true);
      expect(await probe(n.port)).toBe('PONG');
    }
    expect((await nodesOf(INSIDE)).map((n) => n.pid)).toEqual(nodes.map((n) => n.pid));

    const down = await runCli(['sandbox', 'down', INSIDE], env);
    expect(down.code).toBe(0);
    await eventually(async () => !nodes.some((n) => isAlive(n.pid)));
    expect(await probe(nodes[0]!.port)).toBe('refused');
  }, 40_000);
});
