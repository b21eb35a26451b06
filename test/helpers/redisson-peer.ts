import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe } from 'vitest';

// The real Redisson (Java) client as an interop peer: `redisson-peer` in the shared folder next to
// the checkout (built from Redisson 3.52.0's source with Debian's jars; its README says how). It
// prints one JSON line per event; this helper parses them into typed events, lets a test await
// one, and stops every JVM by pid. The JVMs inherit this run's environment, so the suite's leak
// check (global-leaks.ts) sees any that outlive their test.

/** The peer's lock kinds (`getLock`, `getFairLock`, `getReadWriteLock().readLock()`, ...). */
export type PeerKind = 'lock' | 'fair' | 'read' | 'write' | 'fenced' | 'spin';

interface PeerEventBase {
  readonly t: number;
  readonly lib: 'redisson-java';
  readonly kind: PeerKind;
  readonly key: string;
  readonly pid: number;
  readonly port: number;
}

export interface PeerAcquired extends PeerEventBase {
  readonly event: 'acquired';
  /** The hash field Redisson wrote: `<clientId>:<threadId>` (`:write` is added in the hash for writers). */
  readonly token: string;
  readonly clientId: string;
  readonly threadId: number;
  readonly pttl: number;
  readonly leaseMs: number;
  readonly watchdog: boolean;
  readonly watchdogTimeoutMs: number;
  readonly holdMs: number;
  readonly waitedMs: number;
  readonly holdCount: number;
  readonly fencingToken?: number;
}
export interface PeerReleased extends PeerEventBase {
  readonly event: 'released';
  readonly ok: boolean;
  readonly heldMs?: number;
  readonly reason: 'timeout' | 'signal';
  readonly error?: string;
}
export interface PeerFailed extends PeerEventBase {
  readonly event: 'failed';
  readonly reason: 'busy' | 'error';
  readonly waitedMs?: number;
  readonly pttl?: number;
  readonly error?: string;
}
export interface PeerTtl extends PeerEventBase {
  readonly event: 'ttl';
  readonly pttl: number;
  readonly heldMs: number;
  readonly heldByMe: boolean;
}
export interface PeerInfo extends PeerEventBase {
  readonly event: 'info';
  readonly isLocked: boolean;
  readonly pttl: number;
  readonly holdCount: number;
}
export interface PeerForceUnlock extends PeerEventBase {
  readonly event: 'forceunlock';
  readonly ok: boolean;
}
export interface PeerAbandoned extends PeerEventBase {
  readonly event: 'abandoned';
  readonly heldMs: number;
  readonly pttl: number;
}
export type PeerEvent = PeerAcquired | PeerReleased | PeerFailed | PeerTtl | PeerInfo | PeerForceUnlock | PeerAbandoned;
export type PeerEventName = PeerEvent['event'];
export type PeerEventOf<E extends PeerEventName> = Extract<PeerEvent, { event: E }>;

/** A running peer JVM. */
export interface RedissonPeer {
  readonly pid: number;
  /** Every event printed so far, in order (parsed JSON lines of stdout). */
  readonly events: readonly PeerEvent[];
  /** Resolves with the JVM's exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves with the first `event` (already printed or still to come) that passes `match`;
   *  rejects if the JVM exits or `timeoutMs` passes first, quoting its output. */
  waitFor<E extends PeerEventName>(
    event: E,
    options?: { readonly timeoutMs?: number; readonly match?: (e: PeerEventOf<E>) => boolean },
  ): Promise<PeerEventOf<E>>;
  /** SIGTERM (Redisson unlocks in its shutdown hook, exit 143), SIGKILL after `graceMs`; by pid. */
  stop(graceMs?: number): Promise<number | null>;
  /** stdout lines that were not JSON, and stderr: for failure messages. */
  output(): string;
}

export interface PeerOptions {
  /** Redisson's lockWatchdogTimeout (`--watchdog`): the lease when none is given, renewed every third. */
  readonly watchdogMs?: number;
  /** Print a `ttl` event this often while holding (`--report`). */
  readonly reportMs?: number;
  /** Halt without unlocking when the hold ends (`--no-release`): a crashed client. */
  readonly noRelease?: boolean;
}

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the peer is looked for: $REDISSON_PEER, else `../shared/redisson-java/redisson-peer` from the repo root. */
export const PEER_PATH = process.env.REDISSON_PEER ?? join(REPO_ROOT, '../shared/redisson-java/redisson-peer');

/** What is missing to run the peer (one line), or undefined when it can run; checked once per file. */
let checked: { readonly missing: string | undefined } | undefined;
function missingForPeer(): string | undefined {
  checked ??= { missing: findMissing() };
  return checked.missing;
}

function findMissing(): string | undefined {
  if (!existsSync(PEER_PATH)) return `the Redisson Java peer at ${PEER_PATH} (set REDISSON_PEER to its redisson-peer)`;
  // `java -version` prints `openjdk version "17.0.15" ...` on stderr; the peer's classes need 17 or later.
  const java = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 15_000 });
  if (Number(/version "(\d+)/.exec(java.stderr ?? '')?.[1] ?? 0) < 17) {
    return 'java 17 or later (apt-get install openjdk-17-jdk-headless)';
  }
  try {
    // The peer's own check of the Debian jars it runs with; its stderr names the apt packages.
    execFileSync('bash', ['-c', '. "$1/classpath.sh" && check_debian_jars', 'bash', dirname(PEER_PATH)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 15_000,
    });
  } catch (e) {
    const stderr = String((e as { stderr?: Buffer }).stderr ?? '').trim().split('\n');
    return stderr.at(-1) || 'the Debian jars listed in the peer README';
  }
  return undefined;
}

/** setup.ts deletes CI for ink-testing-library; it keeps the value in REDLOCK_CLI_CI for this check. */
const inCi = (): boolean => (process.env.REDLOCK_CLI_CI ?? process.env.CI ?? '') === 'true';

/**
 * describe() for tests that run the peer. With the peer present it is a plain describe. Without it,
 * in CI (CI=true) the block still runs and every test fails, saying what is missing; outside CI one
 * line on stderr says what the tests need and the block is reported as skipped. Tests in it get 60 s.
 */
export function describeWithPeer(name: string, body: () => void): void {
  const missing = missingForPeer();
  const runs = missing === undefined || inCi();
  if (!runs) process.stderr.write(`${name}: not run here, it needs ${missing}\n`);
  // A JVM starts in about 1 s when idle, several on a loaded machine: tests get a minute.
  describe.runIf(runs)(name, { timeout: 60_000 }, () => {
    if (missing !== undefined) {
      beforeAll(() => {
        throw new Error(`the Redisson Java peer cannot run: missing ${missing}`);
      });
    }
    body();
  });
}

const running = new Set<ChildProcess>();
// A failing test must not leave JVMs behind: kill whatever is still running when the worker exits.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function globalFlags(port: number, options: PeerOptions): string[] {
  return [
    '--port', String(port),
    ...(options.watchdogMs !== undefined ? ['--watchdog', String(options.watchdogMs)] : []),
    ...(options.reportMs !== undefined ? ['--report', String(options.reportMs)] : []),
    ...(options.noRelease ? ['--no-release'] : []),
  ];
}

/**
 * Starts `redisson-peer` against 127.0.0.1:`port` with `args` (`hold lock orders 5000`,
 * `trylock fair q 0 5000`, `info read rw`, `forceunlock write rw`, ...). Does not wait for anything:
 * await `waitFor('acquired')`, `exited`, ... as the test needs.
 */
export function startPeer(port: number, args: readonly string[], options: PeerOptions = {}): RedissonPeer {
  // The wrapper execs java, so the child's pid is the JVM's.
  return watchJvm(PEER_PATH, [...globalFlags(port, options), ...args], args);
}

const MULTI_HOLD = join(REPO_ROOT, 'test/helpers/RedissonMultiHold.java');
/** A Java source file run by Java's source launcher on the peer's classpath: `bash -c SOURCE_LAUNCHER bash <peer dir> <file> args...`. */
const SOURCE_LAUNCHER =
  'peer=$1; shift; . "$peer/classpath.sh" && check_debian_jars && exec java -Xss512k -XX:+UseSerialGC ' +
  '-Dorg.slf4j.simpleLogger.defaultLogLevel=error -Dorg.slf4j.simpleLogger.logFile=System.err ' +
  '-cp "$peer/redisson-3.52.0-subset.jar:$DEB_JARS:$J/slf4j-simple.jar" "$@"';

/**
 * One Redisson client holding every lock in `names` (watchdog mode) until stopped, so its
 * watchdog renews them in one batched script run: RedissonMultiHold.java, run by Java's source
 * launcher on the peer's classpath. Its events are the peer's `acquired` (one per name, in order)
 * and, on stop(), one `released` per name (`ok:false` where the server refused the unlock).
 */
export function startMultiHolder(port: number, names: readonly string[], watchdogMs: number): RedissonPeer {
  // bash execs java, so the child's pid is the JVM's.
  const args = [MULTI_HOLD, String(port), String(watchdogMs), ...names];
  return watchJvm('bash', ['-c', SOURCE_LAUNCHER, 'bash', dirname(PEER_PATH), ...args], args);
}

const RATE_LIMIT = join(REPO_ROOT, 'test/helpers/RedissonRateLimit.java');

/** What RedissonRateLimit.java prints: the rate set, each tryAcquire, and every client's id at the end. */
export interface RateLimitEvent {
  readonly event: 'rate-set' | 'acquired' | 'failed' | 'done';
  readonly key: string;
  readonly client?: string;
  readonly permits?: number;
  readonly clients?: readonly string[];
}

/**
 * Real Redisson clients on one RRateLimiter (RedissonRateLimit.java): the first sets the rate
 * (setRate), then each step `client:permits` is one tryAcquire by that client (each its own
 * Redisson client, so its own client id). Runs to its end, bounded by `timeoutMs`.
 */
export async function runRateLimiter(
  port: number,
  limiter: { readonly name: string; readonly type: 'OVERALL' | 'PER_CLIENT'; readonly rate: number; readonly intervalMs: number; readonly keepAliveMs?: number },
  steps: readonly string[],
  timeoutMs = 45_000,
): Promise<{ readonly code: number | null; readonly events: readonly RateLimitEvent[]; readonly output: string }> {
  const args = [RATE_LIMIT, String(port), limiter.name, limiter.type, String(limiter.rate), String(limiter.intervalMs), String(limiter.keepAliveMs ?? 0), ...steps];
  const jvm = watchJvm('bash', ['-c', SOURCE_LAUNCHER, 'bash', dirname(PEER_PATH), ...args], args);
  const timer = setTimeout(() => void jvm.stop(), timeoutMs);
  const code = await jvm.exited;
  clearTimeout(timer);
  return { code, events: jvm.events as unknown as RateLimitEvent[], output: jvm.output() };
}

/** Follows a JVM that prints the peer's JSON lines; `args` name it in failure messages. */
function watchJvm(command: string, argv: readonly string[], args: readonly string[]): RedissonPeer {
  const child = spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  running.add(child);
  const events: PeerEvent[] = [];
  const listeners = new Set<() => void>();
  let other = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{')) events.push(JSON.parse(line) as PeerEvent);
      else if (line.trim() !== '') other += `${line}\n`;
    }
    for (const notify of listeners) notify();
  });
  child.stderr!.on('data', (chunk: Buffer) => (other += chunk.toString()));
  let ended = false;
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      ended = true;
      running.delete(child);
      for (const notify of listeners) notify();
      done(code);
    }),
  );
  const pid = child.pid;
  const describeOutput = (): string =>
    `redisson-peer ${args.join(' ')} (pid ${pid}) printed:\n${events.map((e) => JSON.stringify(e)).join('\n')}\n${other}`;

  return {
    pid,
    events,
    exited,
    output: () => other,
    waitFor(event, { timeoutMs = 15_000, match } = {}) {
      type Wanted = PeerEventOf<typeof event>;
      const find = (): Wanted | undefined =>
        events.find((e): e is Wanted => e.event === event && (match === undefined || match(e as Wanted)));
      return new Promise<Wanted>((resolveEvent, reject) => {
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        const check = (): void => {
          const found = find();
          if (found) {
            finish();
            resolveEvent(found);
          } else if (ended) {
            finish();
            reject(new Error(`no "${event}" event before the peer exited; ${describeOutput()}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no "${event}" event within ${timeoutMs} ms; ${describeOutput()}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 5000) {
      if (ended) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => !ended && child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs the peer to its end (`info`, `forceunlock`, a short `trylock`), bounded by `timeoutMs`. */
export async function runPeer(
  port: number,
  args: readonly string[],
  options: PeerOptions & { readonly timeoutMs?: number } = {},
): Promise<{ readonly code: number | null; readonly events: readonly PeerEvent[] }> {
  const peer = startPeer(port, args, options);
  const timer = setTimeout(() => void peer.stop(), options.timeoutMs ?? 30_000);
  const code = await peer.exited;
  clearTimeout(timer);
  return { code, events: peer.events };
}

/** Stops every peer this file started that is still running (for afterEach/afterAll), by pid. */
export async function stopAllPeers(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGKILL');
      await gone;
    }),
  );
}
