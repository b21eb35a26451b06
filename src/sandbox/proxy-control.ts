import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProxyHost, ProxyNodeStatus, ProxyRequest, ProxyResponse } from './proxy-host.js';

// The proxies of a sandbox are steered through a Unix socket in its directory, not a TCP port:
// only this user can reach it, and a later CLI invocation finds it from the sandbox dir alone.

/** Linux caps a socket path at 107 bytes; a deep state dir falls back to a name derived from it in $TMPDIR. */
export function controlSocketPath(sandboxDir: string): string {
  const inDir = join(sandboxDir, 'proxy.sock');
  if (Buffer.byteLength(inDir) <= 100) return inDir;
  return join(tmpdir(), `redlock-cli-proxy-${createHash('sha256').update(sandboxDir).digest('hex').slice(0, 16)}.sock`);
}

/** What the proxy process prints once its control socket listens. */
export const PROXY_READY_LINE = 'redlock-cli proxy ready';

const MODES = new Set(['pass', 'latency', 'hold', 'cut']);

function parseRequest(line: string): ProxyRequest {
  const req = JSON.parse(line) as Partial<ProxyRequest> & Record<string, unknown>;
  const named = typeof req.node === 'string';
  if (req.op === 'status') return { op: 'status' };
  if (req.op === 'remove' && named) return req as ProxyRequest;
  if (req.op === 'add' && named && Number.isInteger(req.targetPort)) return req as ProxyRequest;
  const mode = req.mode as { kind?: unknown; ms?: unknown } | undefined;
  if (req.op === 'set' && named && MODES.has(String(mode?.kind)) && (mode?.kind !== 'latency' || typeof mode.ms === 'number')) {
    return req as ProxyRequest;
  }
  throw new Error(`invalid proxy request: ${line.slice(0, 200)}`);
}

/** Serves `host` on the control socket: one JSON request line in, one JSON response line out. */
export async function serveProxyControl(host: ProxyHost, path: string): Promise<{ close(): Promise<void> }> {
  // A socket file left by a SIGKILLed proxy would make listen() fail with EADDRINUSE.
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    let buf = '';
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk) => {
      buf += chunk.toString();
      const eol = buf.indexOf('\n');
      if (eol < 0) return;
      let reply: Promise<ProxyResponse>;
      try {
        reply = host.handle(parseRequest(buf.slice(0, eol)));
      } catch (err) {
        reply = Promise.resolve({ ok: false, error: (err as Error).message });
      }
      void reply.then((r) => socket.end(`${JSON.stringify(r)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

/** Sends one request to a sandbox's proxies; throws with their error or when nothing answers in time. */
export function proxyRequest(path: string, req: ProxyRequest, timeoutMs = 2000): Promise<readonly ProxyNodeStatus[]> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let buf = '';
    const fail = (message: string): void => {
      socket.destroy();
      reject(new Error(message));
    };
    socket.setTimeout(timeoutMs, () => fail(`the sandbox's fault proxy did not answer within ${timeoutMs} ms (${path})`));
    socket.once('error', (err) => fail(`the sandbox's fault proxy is not running (${path}: ${(err as NodeJS.ErrnoException).code ?? err.message})`));
    socket.on('data', (chunk) => (buf += chunk.toString()));
    socket.once('end', () => {
      socket.destroy();
      try {
        const res = JSON.parse(buf) as ProxyResponse;
        if (res.ok) resolve(res.proxies);
        else reject(new Error(res.error));
      } catch {
        reject(new Error(`unreadable answer from the sandbox's fault proxy: ${buf.slice(0, 200)}`));
      }
    });
    socket.connect(path, () => socket.write(`${JSON.stringify(req)}\n`));
  });
}
