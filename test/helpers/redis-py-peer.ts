import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The real redis-py client (Debian's python3-redis, which scripts/install-deps.sh installs) run
// by test/interop/redis-py-peer.py, one process per lock handle, each stopped by its pid.

const SCRIPT = fileURLToPath(new URL('../interop/redis-py-peer.py', import.meta.url));
/** Debian's interpreter, where python3-redis is installed (a pyenv python3 first on PATH may lack it). */
const PYTHON = ['/usr/bin/python3', 'python3'].find(
  (p) => spawnSync(p, ['-c', 'import redis'], { stdio: 'ignore' }).status === 0,
);

/** Why the peer cannot run here, or undefined when it can. */
export const redisPyMissing: string | undefined =
  PYTHON === undefined ? 'redis-py interop needs python3 with redis-py (apt-get install python3-redis)' : undefined;

export interface PyEvent {
  readonly event: 'acquired' | 'refused' | 'released' | 'not-owned' | 'extended';
  readonly token?: string;
  readonly waitedMs?: number;
}

export interface PyPeer {
  /** The next event line it prints (rejects if it exits first or after 20 s). */
  next(): Promise<PyEvent>;
  /** Tells a `hold` to release. */
  release(): void;
  /** Its exit, after its last event. */
  readonly exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

export function startPyPeer(port: number, name: string, ...args: string[]): PyPeer {
  const child = spawn(PYTHON!, [SCRIPT, String(port), name, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  running.add(child);
  const lines: PyEvent[] = [];
  const waiters: ((e: PyEvent) => void)[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let i = buffered.indexOf('\n'); i !== -1; i = buffered.indexOf('\n')) {
      const event = JSON.parse(buffered.slice(0, i)) as PyEvent;
      buffered = buffered.slice(i + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(event);
      else lines.push(event);
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => (running.delete(child), resolve(code))),
  );
  return {
    next: () => {
      const ready = lines.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise<PyEvent>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('redis-py peer printed nothing for 20 s')), 20_000);
        waiters.push((e) => (clearTimeout(timer), resolve(e)));
        void exited.then(() => setTimeout(() => reject(new Error('redis-py peer exited without the event')), 50));
      });
    },
    release: () => void child.stdin!.write('release\n'),
    exited,
  };
}

/** Stops every peer still running, by pid. */
export async function stopPyPeers(): Promise<void> {
  const left = [...running];
  for (const child of left) child.kill('SIGKILL');
  await Promise.all(
    left.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)))),
  );
}
