import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { UnreachableError } from '../core/errors.js';
import { call } from './resp.js';
import { isAlive, leadsGroup, ownedBy } from './procfs.js';
import { sleep } from '../core/sleep.js';
import { checkAborted } from './wait.js';

/** A port from listen(0), for systems whose ephemeral range leaves no room below it. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port === 6379 || port === 0 ? kernelPort().then(resolve, reject) : resolve(port)));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The kernel's range for outgoing connections' local ports (ip_local_port_range). */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo && hi) return [lo, hi];
  } catch {
    // not Linux: assume the IANA range
  }
  return [49152, 65535];
}

const CLUSTER_BUS_OFFSET = 10_000;
const LOWEST_PORT = 10_000;

/**
 * A free loopback port below the ephemeral range, with its cluster bus port (+10000) free too.
 * A port the kernel hands out for listen(0) comes from the range outgoing connections use: once
 * a node is killed, any client socket may take its port as a local port, and the restart "on the
 * same port" fails with EADDRINUSE. Never 6379 (below the range we pick from).
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const top = ephemeralLow - CLUSTER_BUS_OFFSET;
  if (top - LOWEST_PORT < 1000) return kernelPort();
  for (let i = 0; i < 50; i++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (top - LOWEST_PORT));
    if ((await canListen(port)) && (await canListen(port + CLUSTER_BUS_OFFSET))) return port;
  }
  throw new Error(`no free loopback port between ${LOWEST_PORT} and ${top} (below the ephemeral range from ${ephemeralLow})`);
}

export interface SpawnSpec {
  readonly bin: string;
  readonly conf: string;
  readonly cwd: string;
  readonly log: string;
  readonly port: number;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export interface Spawned {
  readonly pid: number;
  /** Resolves with a reason when the process exits (used to fail fast while waiting for PING). */
  readonly exited: Promise<string>;
}

/**
 * Starts redis-server in the foreground, so the pid we record is the server itself (never
 * `--daemonize`, never a wrapper that forks). `detached` puts it in its own session: Ctrl-C in the
 * terminal reaches only us (we then stop it ourselves), and `up` can exit while it keeps running.
 */
export function spawnNode(spec: SpawnSpec): Spawned {
  const fd = openSync(spec.log, 'a');
  try {
    const child = spawn(spec.bin, [spec.conf, ...(spec.args ?? [])], {
      cwd: spec.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, ...spec.env },
    });
    const exited = new Promise<string>((resolve) => {
      child.once('error', (err) => resolve(err.message));
      child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exited with code ${code}`));
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${spec.bin}`);
    return { pid: child.pid, exited };
  } finally {
    closeSync(fd);
  }
}

/** The last three lines of a node's log, without Redis's pid/role/time prefix. */
export function logTail(log: string): string {
  try {
    const lines = readFileSync(log, 'utf8').trim().split('\n').slice(-3);
    // `123:S 25 Nov 2026 18:00:00.001 # message`: pid, role, time and level are noise here.
    return lines.map((l) => l.replace(/^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ [*#.-] /, '')).join(' | ');
  } catch {
    return 'no log';
  }
}

/** Waits until the node answers PING; fails with the end of its log if it exits first. */
export async function waitForPing(port: number, spawned: Spawned, log: string, timeoutMs = 5000, signal?: AbortSignal): Promise<void> {
  let exitReason: string | undefined;
  void spawned.exited.then((reason) => (exitReason = reason));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    checkAborted(signal);
    if (exitReason !== undefined) {
      // Not a Redis we can reach: a binary that is not redis-server, a bad config, a port taken.
      throw new UnreachableError(
        `redis-server on port ${port} ${exitReason} before answering (${logTail(log) || 'its log is empty'}): check that --redis-server is a working redis-server (\`<path> --version\`)`,
      );
    }
    const ok = await call(port, ['PING'], 500).then((r) => r === 'PONG', () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new UnreachableError(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms: ${logTail(log)}`);
    await sleep(10);
  }
}

/**
 * SIGKILLs a node after checking the pid is still that node (its config path in the cmdline, its
 * working directory the node's), then waits until it is gone. Returns false when it was not
 * running (or is no longer ours): nothing is signalled then.
 */
export async function killNode(pid: number, conf: string, cwd: string): Promise<boolean> {
  if (!ownedBy(pid, conf, cwd)) return false;
  // The whole group: a disk-based replication sync forks an RDB writer that would outlive its parent.
  process.kill(leadsGroup(pid) ? -pid : pid, 'SIGKILL');
  for (let i = 0; i < 400 && isAlive(pid); i++) await sleep(5);
  return true;
}

/** SIGSTOP / SIGCONT a node after the same ownership check; false when it is not ours or not running. */
export function signalNode(pid: number, conf: string, cwd: string, signal: 'SIGSTOP' | 'SIGCONT'): boolean {
  if (!ownedBy(pid, conf, cwd)) return false;
  process.kill(leadsGroup(pid) ? -pid : pid, signal);
  return true;
}
