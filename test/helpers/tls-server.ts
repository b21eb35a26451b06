import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, startRedis, type RedisServer } from './redis-server.js';

const run = promisify(execFile);

/**
 * A redis-server listening on TLS only (with `ca` trusted for client certificates, required with
 * `authClients`): started with a plain port for the helper's PING, which is then closed.
 */
export async function startTlsOnlyRedis(cert: { cert: string; key: string }, ca: string, authClients: boolean): Promise<{ server: RedisServer; url: string }> {
  const server = await startRedis({
    args: ['--tls-port', '0', '--tls-cert-file', cert.cert, '--tls-key-file', cert.key, '--tls-ca-cert-file', ca, '--tls-auth-clients', authClients ? 'yes' : 'no'],
  });
  const plain = String(server.port);
  const tlsPort = await freePort();
  await run('redis-cli', ['-p', plain, 'CONFIG', 'SET', 'tls-port', String(tlsPort)]);
  await run('redis-cli', ['-p', plain, 'CONFIG', 'SET', 'port', '0']);
  return { server, url: `rediss://127.0.0.1:${tlsPort}` };
}
