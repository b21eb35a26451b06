import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server this test started on a free loopback port; stop() kills it by pid. */
export interface RedisServer {
  readonly port: number;
  readonly pid: number;
  readonly url: string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A failing test must not leave servers behind: kill whatever is still running when the worker exits.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port === 6379 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

/** Sends raw RESP PING until the server answers (or the deadline passes). */
async function waitForPong(port: number, deadlineMs: number, password?: string): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.setTimeout(500);
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => (socket.destroy(), resolve(false)));
      socket.connect(port, '127.0.0.1', () => {
        socket.write(password ? `AUTH ${password}\r\nPING\r\n` : 'PING\r\n');
      });
      socket.on('data', (data) => {
        if (data.toString().includes('PONG')) {
          socket.destroy();
          resolve(true);
        }
      });
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface StartOptions {
  readonly args?: readonly string[];
  readonly password?: string;
  readonly port?: number;
  /** The server binary (default: `redis-server` on the PATH), e.g. from extraServer(). */
  readonly binary?: string;
}

/**
 * The cached build of an extra server (`valkey`, `8.1`) that scripts/extra-servers.sh installs.
 * Missing, it throws: a test that needs it fails saying how to get it, it is never skipped.
 */
export function extraServer(name: string, series: string): string {
  const root = process.env.REDLOCK_SERVER_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'redlock-cli', 'servers');
  const dirs = existsSync(root) ? readdirSync(root).filter((d) => d.startsWith(`${name}-${series}.`)).sort() : [];
  const binary = dirs.map((d) => join(root, d, 'bin', `${name}-server`)).filter((b) => existsSync(b)).at(-1);
  if (!binary) throw new Error(`no ${name} ${series} server under ${root}: run scripts/extra-servers.sh install (or scripts/setup.sh) first`);
  return binary;
}

/** Starts `redis-server` in the foreground (no persistence, loopback only) and waits for PONG. */
export async function startRedis(options: StartOptions = {}): Promise<RedisServer> {
  for (let tries = 0; ; tries++) {
    const port = options.port ?? (await freePort());
    // Its own empty directory: a dump.rdb some other server left in a shared /tmp would be loaded at start.
    const dir = mkdtempSync(join(tmpdir(), 'redlock-cli-test-redis-'));
    const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
    const args = [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--daemonize', 'no', '--loglevel', 'warning', '--dir', dir,
      ...(options.password ? ['--requirepass', options.password] : []),
      ...(options.args ?? []),
    ];
    const child = spawn(options.binary ?? 'redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    running.add(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.once('exit', () => {
      running.delete(child);
      removeDir();
    });
    const ready = waitForPong(port, 5000, options.password).then(() => 'ready' as const);
    const outcome = await Promise.race([ready, exited.then(() => 'exited' as const)]);
    if (outcome === 'ready' && child.pid !== undefined) {
      const pid = child.pid;
      const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
      return {
        port,
        pid,
        url: `redis://${auth}127.0.0.1:${port}`,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGKILL');
          await exited;
        },
      };
    }
    // Port taken between freePort() and bind: try another one.
    if (tries >= 3 || options.port !== undefined) throw new Error(`redis-server failed to start on port ${port}`);
  }
}
