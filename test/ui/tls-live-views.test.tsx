// The REPL and `ls --watch` over rediss:// (issue 25: "every command works over rediss:// ...
// including ls --watch and the REPL"), on the TLS table's kind of server: TLS only, a private CA,
// tls-auth-clients yes. Each view connects with --cacert, --cert and --key and draws the lock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { run } from '../../src/main.js';
import { flagsTarget } from '../../src/repl/target.js';
import type { RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { Keyboard, Sink } from '../helpers/terminal.js';
import { privateCa } from '../helpers/tls-cert.js';
import { startTlsOnlyRedis } from '../helpers/tls-server.js';
import { mountRepl, unmountAll } from './repl-harness.js';

let dir: string;
let server: RedisServer | undefined;
const tls = { url: '', ca: '', cert: '', key: '' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'redlock-tls-views-'));
  const ca = privateCa(dir);
  const client = ca.issue('client', 'DNS:redlock-cli-client');
  const started = await startTlsOnlyRedis(ca.issue('server', 'IP:127.0.0.1'), ca.ca, true);
  server = started.server;
  Object.assign(tls, { url: started.url, ca: ca.ca, cert: client.cert, key: client.key });
}, 60_000);
afterEach(unmountAll);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const flags = (): string[] => ['-u', tls.url, '--cacert', tls.ca, '--cert', tls.cert, '--key', tls.key];

describe('live views over TLS with a client certificate', () => {
  it('the REPL takes a lock and its panel draws it', async () => {
    const endpoint = { ...parseEndpointUrl(tls.url), tlsFiles: { ca: tls.ca, cert: tls.cert, key: tls.key } };
    const r = await mountRepl(flagsTarget({ endpoint }));
    await r.promptIs('');
    r.enter('watch tls-orders');
    await r.shows('free: the key does not exist');
    r.enter('acquire tls-orders --lease 1m');
    await r.shows('acquired "tls-orders"');
    await r.until(() => /tls-orders +reentrant +held/.test(r.panel()), 'the panel drawing the lock');
    expect(r.frame()).not.toMatch(/lost the connection|TLS handshake|certificate/);
  });

  it('ls --watch lists the lock', async () => {
    const env = tempStateEnv();
    const quiet = { stdout: new Sink(), stderr: new Sink(), env };
    expect(await run(['acquire', 'tls-listed', '--lease', '1m', ...flags()], quiet)).toBe(0);
    const [stdout, stderr, keyboard] = [new Sink(true), new Sink(), new Keyboard()];
    const io = { stdout, stderr, stdin: keyboard as unknown as NodeJS.ReadableStream, env, signal: AbortSignal.timeout(20_000) };
    const exited = run(['ls', '--watch', '--interval', '200ms', ...flags()], io);
    const deadline = Date.now() + 15_000;
    while (!/tls-listed +reentrant/.test(stdout.text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    keyboard.press('q');
    expect(await exited).toBe(0);
    expect(stdout.text).toMatch(/tls-listed +reentrant/);
    expect(stderr.text).toBe('');
  });
});
