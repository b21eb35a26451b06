import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

// Generated `redis-cli monitor` logs for `trace --from` at scale (tests and bench/trace-from.ts),
// written to disk as they are made: a log of gigabytes is never held in memory.

export type LogTraffic =
  /** 50 clients take `x` in turn, 2 ms apart, each with a 1 ms lease: every hold expires. */
  | 'expiring'
  /** 50 clients each take and release their own lock (`job:<n>`), the release a compare-and-delete script. */
  | 'released';

const BASE_S = 1_764_064_800;
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

const stamp = (us: number) => `${BASE_S + Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}`;

/** The lines of operation `i` of the traffic, `\n`-terminated. */
export function operationLines(traffic: LogTraffic, i: number): string {
  const us = i * 2000;
  const client = `[0 127.0.0.1:${5000 + (i % 50)}]`;
  if (traffic === 'expiring') return `${stamp(us)} ${client} "SET" "x" "tok${i}" "NX" "PX" "1"\n`;
  const lock = `job:${i % 50}`;
  return (
    `${stamp(us)} ${client} "SET" "${lock}" "tok${i}" "NX" "PX" "30000"\n` +
    `${stamp(us + 1000)} ${client} "EVAL" "${RELEASE.replaceAll('"', '\\"')}" "1" "${lock}" "tok${i}"\n` +
    `${stamp(us + 1000)} [0 lua] "get" "${lock}"\n` +
    `${stamp(us + 1000)} [0 lua] "del" "${lock}"\n`
  );
}

/** The whole log of `n` operations as one string (small logs). */
export function monitorLog(traffic: LogTraffic, n: number): string {
  let text = 'OK\n';
  for (let i = 0; i < n; i++) text += operationLines(traffic, i);
  return text;
}

/** Writes a log of at least `bytes` bytes to `file`, streaming; resolves with its operation count. */
export async function writeMonitorLog(file: string, traffic: LogTraffic, bytes: number): Promise<number> {
  const out = createWriteStream(file);
  let written = 0;
  let n = 0;
  out.write('OK\n');
  while (written < bytes) {
    let chunk = '';
    for (let k = 0; k < 1000; k++) chunk += operationLines(traffic, n++);
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return n;
}
