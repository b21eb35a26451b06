import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { privateCa } from '../helpers/tls-cert.js';
import { startTlsOnlyRedis } from '../helpers/tls-server.js';
import { startTlsSentinel } from '../helpers/topologies.js';

// Every command over rediss:// to a TLS-only server that verifies clients (tls-auth-clients yes),
// with a private CA: each connection the CLI opens (trace's MONITOR and keyspace ones included)
// must present --cert/--key and verify the server with --cacert. Then one row per way the
// certificates can be wrong: one line, exit 3 (an unreadable file is bad input, exit 2).

const run = promisify(execFile);

let dir: string;
let servers: { stop(): Promise<void> }[] = [];
const tls = { url: '', ca: '', cert: '', key: '', otherKey: '', otherCa: '', wrongNameUrl: '', expiredUrl: '', sentinelUrl: '', strangerCert: '', strangerKey: '' };

async function tlsOnlyServer(cert: { cert: string; key: string }, ca: string, authClients: boolean): Promise<string> {
  const { server, url } = await startTlsOnlyRedis(cert, ca, authClients);
  servers.push(server);
  return url;
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'redlock-tls-table-'));
  const ca = privateCa(dir);
  const server = ca.issue('server', 'IP:127.0.0.1,DNS:localhost');
  const client = ca.issue('client', 'DNS:redlock-cli-client');
  const otherCa = privateCa(dir, 'other-ca');
  const stranger = otherCa.issue('stranger', 'DNS:redlock-cli-client');
  Object.assign(tls, { ca: ca.ca, cert: client.cert, key: client.key, otherCa: otherCa.ca, strangerCert: stranger.cert, strangerKey: stranger.key });
  tls.url = await tlsOnlyServer(server, ca.ca, true);
  const otherName = ca.issue('other-name', 'DNS:other.example');
  tls.otherKey = otherName.key;
  tls.wrongNameUrl = await tlsOnlyServer(otherName, ca.ca, false);
  tls.expiredUrl = await tlsOnlyServer(ca.issue('expired', 'IP:127.0.0.1', -1), ca.ca, false);
  // The first server as a Sentinel's master: the sentinel too listens on TLS only and verifies clients.
  const sentinel = await startTlsSentinel(Number(new URL(tls.url).port), { ...server, ca: ca.ca });
  servers.push(sentinel);
  tls.sentinelUrl = `rediss-sentinel://127.0.0.1:${sentinel.port}#mymaster`;
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(args: readonly string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run('node', [BIN, ...args], { env: { ...process.env, XDG_STATE_HOME: dir }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const verified = (): string[] => ['-u', tls.url, '--cacert', tls.ca, '--cert', tls.cert, '--key', tls.key];
const unverified = (): string[] => ['-u', tls.url, '--insecure', '--cert', tls.cert, '--key', tls.key];

/**
 * Runs `trace --for` and, once it says it follows the server, acquires `key` with another
 * process: resolves with the trace's output, which must show that acquisition.
 */
function traceWhileLocking(flags: readonly string[], traceArgs: readonly string[], key: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    // 6 s: the acquiring CLI starts only once the trace follows, and a loaded machine can take
    // seconds to start node (2 s missed it once beside a CPU hog per core).
    const child = spawn('node', [BIN, 'trace', '--for', '6s', '--json', ...traceArgs, ...flags], { env: { ...process.env, XDG_STATE_HOME: dir } });
    let stdout = '';
    let stderr = '';
    let locked = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!locked && /following/.test(stderr)) {
        locked = true;
        cli(['acquire', key, ...flags]).then((r) => r.code === 0 || reject(new Error(`acquire during the trace: ${r.stderr}`)), reject);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

const lines = (text: string): string[] => text.trim().split('\n');

describe.each([
  ['--cacert with a client certificate', verified],
  ['--insecure with a client certificate', unverified],
])('rediss:// to a TLS-only server that verifies clients, %s', (label, flags) => {
  const tag = label.startsWith('--insecure') ? 'insecure' : 'verified';
  const key = (name: string): string => `tls-table:${tag}:${name}`;

  it.each([
    // A lease that outlasts the rows up to release on a loaded machine.
    ['acquire', (): string[] => ['acquire', key('a'), '--lease', '5m']],
    ['renew', (): string[] => ['renew', key('a')]],
    ['inspect', (): string[] => ['inspect', key('a')]],
    ['inspect --watch --json --count 2', (): string[] => ['inspect', key('a'), '--watch', '--json', '--count', '2', '--interval', '200ms']],
    ['ls', (): string[] => ['ls']],
    ['doctor', (): string[] => ['doctor']],
    ['release', (): string[] => ['release', key('a')]],
    ['hold --for', (): string[] => ['hold', key('h'), '--for', '1s', '--json']],
    ['hold --for -- true', (): string[] => ['hold', key('c'), '--for', '1s', '--json', '--', 'true']],
    ['acquire (to force-unlock)', (): string[] => ['acquire', key('f')]],
    ['force-unlock --yes', (): string[] => ['force-unlock', key('f'), '--yes']],
  ])('%s exits 0', async (_name, args) => {
    const r = await cli([...flags(), ...args()]);
    expect(r.code, r.stderr).toBe(0);
  });

  // Exit 8 (inconclusive) is a busy machine's answer, never a wrong one; the clients did connect and acquire.
  it.each([
    ['in this process', []],
    ['in worker processes (--procs 2)', ['--procs', '2']],
  ])('race --yes %s races over TLS', async (_name, procs) => {
    const r = await cli([...flags(), 'race', key(`race-${procs.length}`), '--clients', '4', '--duration', '1s', '--lease', '2s', '--hold', '2ms', '--yes', '--json', ...procs]);
    expect([0, 8], r.stderr).toContain(r.code);
    expect(JSON.parse(r.stdout)).toMatchObject({ target: tls.url.replace('rediss://', ''), violations: [] });
    expect((JSON.parse(r.stdout) as { acquisitions: number }).acquisitions).toBeGreaterThan(0);
  });

  it.each([
    ['MONITOR', ['--source', 'monitor']],
    ['keyspace', ['--source', 'keyspace', '--enable-notifications']],
  ])('trace --for 6s with the %s source sees a lock taken during it', async (_name, source) => {
    const lock = key(`trace-${source[1]}`);
    const r = await traceWhileLocking(flags(), source, lock);
    expect(r.code, r.stderr).toBe(0);
    const events = lines(r.stdout).map((l) => JSON.parse(l) as { type: string; lock?: string; kind?: string });
    expect(events.some((e) => e.type === 'event' && e.lock === lock && e.kind === 'acquired')).toBe(true);
  });
});

describe('a Sentinel behind TLS: sentinel and master on TLS ports only, both verifying clients', () => {
  const flags = (): string[] => ['-u', tls.sentinelUrl, '--cacert', tls.ca, '--cert', tls.cert, '--key', tls.key];
  const key = (name: string): string => `tls-table:sentinel:${name}`;

  it.each([
    ['acquire', (): string[] => ['acquire', key('a')]],
    ['inspect', (): string[] => ['inspect', key('a')]],
    ['ls', (): string[] => ['ls']],
    ['release', (): string[] => ['release', key('a')]],
  ])('%s exits 0', async (_name, args) => {
    const r = await cli([...flags(), ...args()]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('--insecure (no --cacert) reaches the sentinel and the master as well', async () => {
    const r = await cli(['-u', tls.sentinelUrl, '--insecure', '--cert', tls.cert, '--key', tls.key, 'acquire', key('i')]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('race --yes races on the master the sentinel names', async () => {
    const r = await cli([...flags(), 'race', key('race'), '--clients', '3', '--duration', '1s', '--lease', '2s', '--hold', '2ms', '--yes', '--json']);
    expect([0, 8], r.stderr).toContain(r.code);
    expect(JSON.parse(r.stdout)).toMatchObject({ target: expect.stringMatching(/^sentinel 127\.0\.0\.1:\d+ master mymaster$/), violations: [] });
  });

  it.each([
    ['MONITOR', ['--source', 'monitor']],
    ['keyspace', ['--source', 'keyspace', '--enable-notifications']],
  ])('trace --for 6s with the %s source follows the master and sees a lock taken during it', async (_name, source) => {
    const lock = key(`trace-${source[1]}`);
    const r = await traceWhileLocking(flags(), source, lock);
    expect(r.code, r.stderr).toBe(0);
    const events = lines(r.stdout).map((l) => JSON.parse(l) as { type: string; lock?: string; kind?: string });
    expect(events.some((e) => e.type === 'event' && e.lock === lock && e.kind === 'acquired')).toBe(true);
  });
});

describe('a certificate that does not verify: one line naming what is wrong', () => {
  const rows: [string, () => string[], number, RegExp][] = [
    ['a server certificate from an unknown CA', () => ['-u', tls.url, '--cacert', tls.otherCa, '--cert', tls.cert, '--key', tls.key], 3, /TLS handshake with 127\.0\.0\.1:\d+ failed: .*(self[- ]signed|unable to get|issuer)/i],
    ['a certificate for another host name', () => ['-u', tls.wrongNameUrl, '--cacert', tls.ca], 3, /TLS handshake with 127\.0\.0\.1:\d+ failed: .*(altnames|does not match)/i],
    // The server refuses the client after the handshake: its alert names the reason, also when
    // the connection was reset before the alert was read.
    ['no client certificate where the server requires one', () => ['-u', tls.url, '--cacert', tls.ca], 3, /^redlock-cli: Redis at 127\.0\.0\.1:\d+ requires a client certificate: pass --cert/m],
    ['a client certificate the server\'s CA did not sign', () => ['-u', tls.url, '--cacert', tls.ca, '--cert', tls.strangerCert, '--key', tls.strangerKey], 3, /^redlock-cli: Redis at 127\.0\.0\.1:\d+ does not accept the client certificate --cert \S*stranger\.pem/m],
    ['an expired server certificate', () => ['-u', tls.expiredUrl, '--cacert', tls.ca], 3, /TLS handshake with 127\.0\.0\.1:\d+ failed: .*expired/i],
    ['a --cacert file that does not exist', () => ['-u', tls.url, '--cacert', join(dir, 'missing.pem')], 2, /cannot read --cacert .*missing\.pem: ENOENT/],
    // Files that are there but wrong: named before any connection, not OpenSSL's "PEM routines::no start line" (exit 1).
    ['a --cert file that is a key, not a certificate', () => ['-u', tls.url, '--cacert', tls.ca, '--cert', tls.key, '--key', tls.key], 2, /^redlock-cli: --cert \S+ is not a certificate \(a PEM file is expected\)$/m],
    ['a --cacert file that is not a certificate', () => ['-u', tls.url, '--cacert', tls.key], 2, /^redlock-cli: --cacert \S+ is not a certificate/m],
    ['a --key that is not the key of --cert', () => ['-u', tls.url, '--cacert', tls.ca, '--cert', tls.cert, '--key', tls.otherKey], 2, /^redlock-cli: --key \S+ is not the private key of --cert \S+$/m],
  ];

  it.each(rows)('%s: acquire, trace and race say so and exit as documented', async (_name, flags, code, message) => {
    const race = ['race', 'tls-table:bad', '--duration', '1s', '--yes'];
    for (const command of [['acquire', 'tls-table:bad'], ['trace', '--for', '2s'], ['trace', '--for', '2s', '--source', 'keyspace'], race]) {
      const r = await cli([...command, ...flags()]);
      expect({ command: command[0], code: r.code }).toEqual({ command: command[0], code });
      expect(lines(r.stderr), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  });
});
