import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { CommandRunner } from './clock-runner.js';
import { buildMallocShim } from './clock-shim.js';
import { sleep } from '../core/sleep.js';

/** Node wall clock minus real time, and the rate it runs at, as measured on the node. */
export interface ClockReading {
  readonly skewMs: number;
  readonly rate: number;
}

export interface FakeClockEnvOptions {
  /** FAKETIME_TIMESTAMP_FILE: may be absent (the node then runs on real time) until a clock verb writes it. */
  readonly timestampFile: string;
  /** Where the malloc shim is built and kept; it must outlive the sandbox directory's clean-ups. */
  readonly shimDir: string;
  readonly support: { readonly library: string; readonly compiler: string };
}

const realNowMs = (): number => performance.timeOrigin + performance.now();

/**
 * The environment that runs a redis-server under libfaketime. Set it on the redis-server child
 * itself: the `faketime` wrapper forks, so its pid would not be the server's.
 */
export async function fakeClockEnv(opts: FakeClockEnvOptions): Promise<Record<string, string>> {
  const shim = await buildMallocShim(opts.shimDir, opts.support.compiler);
  return {
    // The shim must come first: it has to own malloc before libfaketime's constructor runs.
    LD_PRELOAD: [shim, opts.support.library].join(':'),
    FAKETIME_TIMESTAMP_FILE: opts.timestampFile,
    // Re-read the file on every clock call, so a jump lands within the next command.
    FAKETIME_NO_CACHE: '1',
    // Only the wall clock moves, like an NTP step: Redis's timers and timeouts stay real.
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    // `@<epoch seconds>` specs (see shiftFakeClock), independent of the node's time zone.
    FAKETIME_FMT: '%s',
  };
}

/** The timestamp file of a node started with fakeClockEnv (from its recorded environment). */
export function fakeClockFile(env: Readonly<Record<string, string>> | undefined): string | undefined {
  return env?.LD_PRELOAD?.includes('libfaketime') ? env.FAKETIME_TIMESTAMP_FILE : undefined;
}

/**
 * Jumps the node's wall clock by `jumpMs` and/or sets its rate, then measures that it took.
 *
 * libfaketime evaluates `+<offset> x<rate>` as `start + (real - start) * rate + offset`, with
 * `start` the moment the process loaded it, which we cannot read. At rate 1 that is simply
 * `real + offset`, so rate-1 clocks are written that way (and survive a restart unchanged).
 * Any other rate is written as `@<fake now> x<rate>`: libfaketime restarts its reference at the
 * moment it parses that, which our TIME probe triggers right after the write, so the clock bends
 * at the new rate from where it is instead of leaping by (rate - 1) x the node's age.
 */
export async function shiftFakeClock(
  timestampFile: string,
  client: CommandRunner,
  change: { readonly jumpMs?: number; readonly rate?: number },
): Promise<ClockReading> {
  const before = currentRate(timestampFile);
  const now = await readTime(client);
  const realMs = realNowMs();
  const targetMs = now.fakeMs + (realMs - now.realMs) * before + (change.jumpMs ?? 0);
  const rate = change.rate ?? before;
  const spec = rate === 1 ? `${signed((targetMs - realMs) / 1000)} x1` : `@${(targetMs / 1000).toFixed(6)} x${rate}`;
  writeSpec(timestampFile, spec);
  // Where the node's clock may be when our probe reads it. Rate 1: real time plus the new offset.
  // `@`: it starts at the target when libfaketime parses the file, at our probe or at any clock
  // call Redis made since the write, and runs at `rate` from there.
  // The first reading is itself uncertain by half its round trip (long on a busy machine): the
  // node's clock may land that far either side of the target.
  const uncertainty = (now.afterMs - now.beforeMs) / 2;
  return verify(client, rate, (probe) =>
    rate === 1
      ? [probe.beforeMs + targetMs - realMs - uncertainty, probe.afterMs + targetMs - realMs + uncertainty]
      : [targetMs - uncertainty, targetMs + (probe.afterMs - realMs) * rate + uncertainty],
  );
}

/** Puts a node's clock back on real time at real speed (a no-op while no clock verb has written its file). */
export function resetFakeClock(timestampFile: string): boolean {
  if (!existsSync(timestampFile)) return false;
  writeSpec(timestampFile, '+0.000000 x1');
  return true;
}

const signed = (seconds: number): string => `${seconds < 0 ? '-' : '+'}${Math.abs(seconds).toFixed(6)}`;

/**
 * What a node's timestamp file says now, or undefined while no clock verb has written it: the
 * offset from real time (only for a `+<offset>` spec; an `@<time>` one is read back with TIME) and the rate.
 */
export function readClockSpec(timestampFile: string): { readonly offsetMs?: number; readonly rate: number } | undefined {
  if (!existsSync(timestampFile)) return undefined;
  const spec = readFileSync(timestampFile, 'utf8');
  const rate = /x(\d+(?:\.\d+)?)/.exec(spec);
  const offset = /^([+-]\d+(?:\.\d+)?)/.exec(spec.trim());
  return { rate: rate ? Number(rate[1]) : 1, ...(offset ? { offsetMs: Math.round(Number(offset[1]) * 1000) } : {}) };
}

function currentRate(timestampFile: string): number {
  return readClockSpec(timestampFile)?.rate ?? 1;
}

/** Atomic: libfaketime re-reads the file on every call and exits on one it cannot parse. */
function writeSpec(timestampFile: string, spec: string): void {
  // Plain decimals only: libfaketime multiplies an offset by 60 if it sees an 'm' anywhere in it.
  const partial = `${timestampFile}.${process.pid}.tmp`;
  writeFileSync(partial, `${spec}\n`);
  renameSync(partial, timestampFile);
}

interface TimeProbe {
  readonly fakeMs: number;
  /** Real time just before the command was sent and just after its reply arrived. */
  readonly beforeMs: number;
  readonly afterMs: number;
  readonly realMs: number;
}

async function readTime(client: CommandRunner): Promise<TimeProbe> {
  const beforeMs = realNowMs();
  const reply = await client.call('TIME');
  const afterMs = realNowMs();
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected TIME reply: ${JSON.stringify(reply)}`);
  return { fakeMs: Number(reply[0]) * 1000 + Number(reply[1]) / 1000, beforeMs, afterMs, realMs: (beforeMs + afterMs) / 2 };
}

// Slack for TIME's microsecond rounding and libfaketime's own arithmetic.
const SLACK_MS = 5;

/** The node's TIME must now fall in the expected range; a few retries cover a node still busy. */
async function verify(client: CommandRunner, rate: number, expected: (probe: TimeProbe) => readonly [number, number]): Promise<ClockReading> {
  for (let attempt = 0; ; attempt++) {
    const probe = await readTime(client);
    const [lo, hi] = expected(probe);
    // At a rate r, each real millisecond of uncertainty (when the node re-read the spec) is r fake ones.
    const slack = SLACK_MS * Math.max(1, rate);
    if (probe.fakeMs >= lo - slack && probe.fakeMs <= hi + slack) return { skewMs: Math.round(probe.fakeMs - probe.realMs), rate };
    if (attempt >= 20) {
      const off = Math.round(probe.fakeMs < lo ? probe.fakeMs - lo : probe.fakeMs - hi);
      throw new Error(`the node's clock did not follow the change (off by ${off} ms): is it running under libfaketime?`);
    }
    await sleep(10);
  }
}
