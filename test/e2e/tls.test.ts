import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { selfSignedCert } from '../helpers/tls-cert.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';

const run = promisify(execFile);

let dir: string;
let server: RedisServer;
let tlsPort: number;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'redlock-tls-'));
  selfSignedCert(dir);
  tlsPort = await freePort();
  // A plain port too, so the helper can see the server is up.
  server = await startRedis({
    args: ['--tls-port', String(tlsPort), '--tls-cert-file', join(dir, 'cert.pem'), '--tls-key-file', join(dir, 'key.pem'), '--tls-auth-clients', 'no'],
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const env = { ...process.env, XDG_STATE_HOME: dir, ...extraEnv };
  try {
    const { stdout, stderr } = await run('node', [BIN, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('rediss:// (TLS)', () => {
  it('locks over TLS when the server certificate is trusted, without a servername warning', async () => {
    const r = await cli(['acquire', 'tls-lock', '-u', `rediss://127.0.0.1:${tlsPort}`, '--json'], { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).acquired).toBe(true);
    expect(r.stderr).not.toContain('DeprecationWarning');
  });

  it('an untrusted certificate is one line and exit 3, saying how to trust it', async () => {
    const r = await cli(['acquire', 'tls-lock2', '-u', `rediss://127.0.0.1:${tlsPort}`]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`^redlock-cli: TLS handshake with 127\\.0\\.0\\.1:${tlsPort} failed: self[- ]signed certificate .*NODE_EXTRA_CA_CERTS`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
