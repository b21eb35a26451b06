import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildMallocShim } from './clock-shim.js';

/** The little of a Redis client the clock code needs (an ioredis client fits). */
export interface CommandRunner {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** The two files through which a running node's libfaketime clock is steered. */
export interface FakeClockFiles {
  /** FAKETIME_TIMESTAMP_FILE: re-read on every clock call (FAKETIME_NO_CACHE=1). */
  readonly timestampFile: string;
  /** Our own record of the clock function, so a later CLI process can change it. */
  readonly stateFile: string;
}

/**
 * libfaketime computes `fake = start + (real - start) * rate + offset`, where `start` is the
 * real time at which the process loaded it. Jumps only move `offset`; a rate change must also
 * move `offset` so the clock bends instead of leaping, and that needs `start`, which libfaketime
 * does not expose: the node is started frozen (`x0`, fake = start + offset) and attach() reads it.
 */
interface FakeClockState {
  readonly startMs: number | null;
  readonly offsetMs: number;
  readonly rate: number;
}

export interface FakeClockSetup {
  readonly files: FakeClockFiles;
  /** Extra environment for the redis-server child: set it on that process, not on a wrapper. */
  readonly env: Readonly<Record<string, string>>;
}

/** Node wall clock minus real time, and the rate it runs at, as measured on the node. */
export interface ClockReading {
  readonly skewMs: number;
  readonly rate: number;
}

const realNowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Prepares a node to run under libfaketime: builds the malloc shim once per `dir`, and arms a
 * frozen clock for the next process. Call before every spawn (also a restart), then attach().
 */
export async function prepareFakeClock(
  dir: string,
  node: string,
  support: { readonly library: string; readonly compiler: string },
): Promise<FakeClockSetup> {
  const shim = await buildMallocShim(dir, support.compiler);
  const files = { timestampFile: join(dir, `${node}.faketime`), stateFile: join(dir, `${node}.clock.json`) };
  const state = existsSync(files.stateFile) ? readState(files) : { startMs: null, offsetMs: 0, rate: 1 };
  writeSpec(files, state.offsetMs, 0);
  writeState(files, state);
  return {
    files,
    env: {
      // The shim must come first: it has to own malloc before libfaketime's constructor runs.
      LD_PRELOAD: [shim, support.library, process.env.LD_PRELOAD].filter(Boolean).join(':'),
      FAKETIME_TIMESTAMP_FILE: files.timestampFile,
      FAKETIME_NO_CACHE: '1',
      // Only the wall clock moves, like an NTP step: Redis's timers and timeouts stay real.
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
  };
}

/** Once the node answers: learns its libfaketime start time and lets its clock run. */
export async function attachFakeClock(files: FakeClockFiles, client: CommandRunner): Promise<ClockReading> {
  const previous = readState(files);
  const { fakeMs } = await readTime(client);
  const startMs = fakeMs - previous.offsetMs;
  // A restarted node keeps the old process's skew: shift the offset by what the new start changes.
  const offsetMs = previous.startMs === null ? previous.offsetMs : previous.offsetMs + (startMs - previous.startMs) * (previous.rate - 1);
  const state = { startMs, offsetMs, rate: previous.rate };
  writeState(files, state);
  writeSpec(files, offsetMs, state.rate);
  return verify(client, state);
}

/** Jumps the node's wall clock by `jumpMs` and/or sets its rate, then measures that it took. */
export async function shiftFakeClock(
  files: FakeClockFiles,
  client: CommandRunner,
  change: { readonly jumpMs?: number; readonly rate?: number },
): Promise<ClockReading> {
  const state = readState(files);
  if (state.startMs === null) throw new Error(`the clock in ${files.stateFile} was never attached to its node`);
  const rate = change.rate ?? state.rate;
  const bend = (realNowMs() - state.startMs) * (state.rate - rate);
  const next = { startMs: state.startMs, offsetMs: state.offsetMs + bend + (change.jumpMs ?? 0), rate };
  writeState(files, next);
  writeSpec(files, next.offsetMs, next.rate);
  return verify(client, next);
}

/** libfaketime leaves its shared memory behind when a node is SIGKILLed: remove it for `pid`. */
export function removeFaketimeLeftovers(pid: number, shmDir = '/dev/shm'): void {
  for (const name of [`faketime_shm_${pid}`, `sem.faketime_sem_${pid}`]) rmSync(join(shmDir, name), { force: true });
}

function readState(files: FakeClockFiles): FakeClockState {
  return JSON.parse(readFileSync(files.stateFile, 'utf8')) as FakeClockState;
}

function writeState(files: FakeClockFiles, state: FakeClockState): void {
  writeFileSync(files.stateFile, `${JSON.stringify(state)}\n`);
}

/** Atomic: libfaketime re-reads the file on every call and exits on one it cannot parse. */
function writeSpec(files: FakeClockFiles, offsetMs: number, rate: number): void {
  const seconds = offsetMs / 1000;
  // Plain decimals only: libfaketime multiplies by 60 if it sees an 'm' (or 'h', 'd', 'y') anywhere.
  const spec = `${seconds < 0 ? '-' : '+'}${Math.abs(seconds).toFixed(6)} x${rate.toFixed(6)}\n`;
  const partial = `${files.timestampFile}.tmp`;
  writeFileSync(partial, spec);
  renameSync(partial, files.timestampFile);
}

async function readTime(client: CommandRunner): Promise<{ fakeMs: number; realMs: number }> {
  const before = realNowMs();
  const reply = (await client.call('TIME')) as unknown;
  const after = realNowMs();
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected TIME reply: ${JSON.stringify(reply)}`);
  return { fakeMs: Number(reply[0]) * 1000 + Number(reply[1]) / 1000, realMs: (before + after) / 2 };
}

/** The node reads the file on its next clock call: its TIME must now match the new function. */
async function verify(client: CommandRunner, state: FakeClockState): Promise<ClockReading> {
  for (let attempt = 0; ; attempt++) {
    const { fakeMs, realMs } = await readTime(client);
    const expected = (state.startMs ?? realMs) + (realMs - (state.startMs ?? realMs)) * state.rate + state.offsetMs;
    if (Math.abs(fakeMs - expected) < 20) return { skewMs: Math.round(fakeMs - realMs), rate: state.rate };
    if (attempt >= 20) {
      throw new Error(`node clock did not follow ${state.offsetMs} ms x${state.rate}: off by ${Math.round(fakeMs - expected)} ms`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
