// The REPL driven with keystrokes through ink-testing-library, on a real redis-server: the same
// session and view `redlock-cli repl` mounts, only the terminal is fake.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyFile } from '../../src/repl/history.js';
import type { ReplSession } from '../../src/repl/session.js';
import { urlTarget } from '../../src/repl/target.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { KEY, mountRepl, unmountAll } from './repl-harness.js';

let server: RedisServer;
let redis: ReturnType<typeof rawClient>;

beforeAll(async () => {
  server = await startRedis();
  redis = rawClient(server);
});
afterEach(unmountAll);
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

const mount = (env = tempStateEnv()) => mountRepl(urlTarget(server.url), env);

const ownerOf = (session: ReplSession, name: string): string => `${session.state.clients.find((c) => c.name === name)!.identity.client}:1`;

describe('the REPL at the keyboard', () => {
  it('runs typed commands, and bad input prints an error without ending the session', async () => {
    const r = await mount();
    await r.promptIs('');
    r.enter('frobnicate');
    await r.shows("unknown command 'frobnicate': help lists the commands");
    r.enter("acquire 'bad");
    await r.shows('unbalanced single quote');
    r.enter('as Z acquire bad');
    await r.shows('no client "Z": clients are A, B; create one with: use Z');
    r.enter('as A');
    await r.shows('as <client> <command...>');
    r.enter('acquire typed --lease 5s');
    await r.shows('acquired "typed" (reentrant) as');
    expect(await redis.hgetall('typed')).toEqual({ [ownerOf(r.session, 'A')]: '1' });
    // Typing still edits the line after all that.
    r.type('clie');
    await r.promptIs('clie');
  });

  it('walks the history with up and down, and keeps it for the next session', async () => {
    const env = tempStateEnv();
    const r = await mount(env);
    r.enter('clients');
    await r.shows('holds nothing');
    r.enter('jobs');
    await r.shows('no background commands');
    r.type('draft');
    await r.promptIs('draft');
    r.type(KEY.up);
    await r.promptIs('jobs');
    r.type(KEY.up);
    await r.promptIs('clients');
    r.type(KEY.down);
    await r.promptIs('jobs');
    r.type(KEY.down);
    await r.promptIs('draft');
    expect(readFileSync(historyFile(env), 'utf8')).toBe('clients\njobs\n');

    const next = await mount(env);
    next.type(KEY.up);
    await next.promptIs('jobs');
  });

  it('completes commands, options, option values, clients and keys with Tab', async () => {
    const r = await mount();
    r.type(`acq${KEY.tab}`);
    await r.promptIs('acquire');
    r.type(`tabbed --ki${KEY.tab}`);
    await r.promptIs('acquire tabbed --kind');
    r.type(`fa${KEY.tab}`);
    await r.promptIs('acquire tabbed --kind fair');
    r.type(KEY.ctrlU);
    await r.promptIs('');
    r.type(`as ${KEY.tab}`);
    await r.until((f) => /^A {2}B$/m.test(f), 'the candidates A and B under the line');
    r.type(`B rel${KEY.tab}`);
    await r.promptIs('as B release');
    r.type(KEY.ctrlU);
    await r.promptIs('');
    r.enter('acquire completed-key --lease 5s');
    await r.shows('acquired "completed-key"');
    r.type(`watch comp${KEY.tab}`);
    await r.promptIs('watch completed-key');
  });

  it('as: two clients contend like two services, and the watched key shows who holds it', async () => {
    const r = await mount();
    r.enter('watch contended');
    await r.shows('free: the key does not exist');
    r.enter('as A acquire contended --lease 20s');
    await r.until((f) => f.includes('A holds it') && f.includes(ownerOf(r.session, 'A')), 'the panel showing A as holder');
    await r.shows('A holds contended reentrant');
    r.enter('as B acquire contended');
    await r.shows('exit 5');
    // The refusal names the holder as one of this REPL's clients, not only by its owner id.
    expect(r.frame()).toContain(`held by ${ownerOf(r.session, 'A')} (A)`);
    r.enter('use B');
    await r.until((f) => /^B@127\.0\.0\.1:\d+>\s*$/m.test(f), 'the prompt of client B');
    r.enter('clients');
    await r.until((f) => /^ {2}A {2}\S+ {2}holds contended \(reentrant\)$/m.test(f), 'clients listing A as holder');
    // The panel counts down: two frames a few hundred ms apart show less lease left.
    const left = () => Number(/contended reentrant on 127\.0\.0\.1:\d+ [█░]+ ([\d.]+) s/.exec(r.frame())?.[1]);
    const first = left();
    await r.until(() => left() < first, 'the lease counting down');
    expect(left()).toBeLessThan(first);
  });

  it('Ctrl-C cancels a waiting acquire --wait, not the REPL', async () => {
    const r = await mount();
    r.enter('as A acquire waited --lease 20s');
    await r.shows('acquired "waited"');
    r.enter('as B acquire waited --wait 20s');
    await r.shows(`B waits for waited on 127.0.0.1:${server.port} (Ctrl-C cancels)`);
    await r.shows('running as B');
    const pressed = Date.now();
    r.type(KEY.ctrlC);
    await r.shows('exit 130');
    // The key press, not the end of the 20 s wait (the slack is for a loaded machine).
    expect(Date.now() - pressed).toBeLessThan(10_000);
    await r.until((f) => !f.includes('running as B'), 'the prompt back');
    r.enter('as B acquire waited');
    await r.until((f) => f.split('exit 5').length === 2, 'B refused again');
    expect(await redis.hgetall('waited')).toEqual({ [ownerOf(r.session, 'A')]: '1' });
  });

  it('hold runs in the background; the holder releasing lets the waiting hold in; exit releases it', async () => {
    const r = await mount();
    r.enter('as A hold held');
    await r.until((f) => /A holds held reentrant .*watchdog, 0 renewals \(hold %1\)/.test(f), 'A holding in %1');
    r.enter('as B hold held --wait 20s');
    await r.shows(`B waits for held on 127.0.0.1:${server.port} (hold %2`);
    r.enter('as A release held');
    await r.until((f) => /B holds held reentrant .*\(hold %2\)/.test(f), 'B holding in %2');
    await r.shows('[%1] done, exit 130: as A hold held');
    expect(await redis.hgetall('held')).toEqual({ [ownerOf(r.session, 'B')]: '1' });
    r.enter('exit');
    await r.shows(`B holds "held" on 127.0.0.1:${server.port} (hold %2): release and leave? [y/N]`);
    r.enter('y');
    expect(await r.session.finished).toBe(0);
    expect(await redis.exists('held')).toBe(0);
    const list = (await redis.call('CLIENT', 'LIST')) as string;
    expect(list).not.toMatch(/name=redlock-cli:repl/);
  });

  it('a line ending in & runs in the background: jobs lists it, cancel stops it; help says how holding works', async () => {
    const r = await mount();
    r.enter('as A acquire bg --lease 20s');
    await r.shows('acquired "bg"');
    r.enter('as B acquire bg --wait 20s &');
    await r.shows('[%1] B: as B acquire bg --wait 20s & (in the background: cancel %1 stops it)');
    await r.promptIs('');
    r.enter('jobs');
    await r.until((f) => /^%1 {2}B {2}[\d.]+ m?s {2}as B acquire bg --wait 20s &$/m.test(f), 'the job listed');
    r.enter('cancel %1');
    await r.shows('[%1] done, exit 130: as B acquire bg --wait 20s &');
    r.enter('help');
    await r.shows('`hold <key>` runs in the background here');
    expect(r.frame()).toContain('step <scenario> [variant] [--speed x]');
  });

  it('Ctrl-C on an empty line says how to leave; Ctrl-D leaves at once when nothing is held', async () => {
    const r = await mount();
    r.type('some text');
    await r.promptIs('some text');
    r.type(KEY.ctrlC);
    await r.promptIs('');
    r.type(KEY.ctrlC);
    await r.shows('(exit or Ctrl-D leaves)');
    r.type(KEY.ctrlD);
    expect(await r.session.finished).toBe(0);
  });
});
