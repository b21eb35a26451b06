import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace --from` fed damaged files: each is one line on stderr naming the file and line, exit 2,
// never a stack (exit 1). Events are written as they are decoded, so those of the good line
// before the bad one are out (the reader got that far) and nothing after it is.

const dir = mkdtempSync(join(tmpdir(), 'redlock-trace-bad-'));
const ACQUIRED = {
  type: 'event',
  kind: 'acquired',
  t: 1_764_064_800_000,
  lock: 'x',
  owner: 'a',
  client: { addr: '127.0.0.1:5001' },
  leaseMs: 100,
  count: 1,
};
const REFUSED = { type: 'event', kind: 'release-refused', t: 1_764_064_800_500, lock: 'x', owner: 'a' };
const HEADER = { type: 'redlock-cli-trace', version: 1, source: '127.0.0.1:6379', startedAt: 1_764_064_800_000 };
const recording = (bad: string) =>
  [HEADER, ACQUIRED]
    .map((v) => JSON.stringify(v))
    .concat(bad, JSON.stringify(REFUSED))
    .join('\n');
const SET = '1764064800.000000 [0 127.0.0.1:5001] "SET" "x" "a" "NX" "PX" "100"';
const monitor = (bad: string) => ['OK', SET, bad, SET].join('\n');
const event = (fields: object) => JSON.stringify({ ...ACQUIRED, ...fields });

const CASES: readonly (readonly [name: string, text: string, line: number, message: RegExp])[] = [
  ['time far beyond any clock', event({ t: 1e300 }), 3, /"t" must be a time/],
  ['time overflowing to Infinity', event({ t: 0 }).replace('"t":0', '"t":1e400'), 3, /"t" must be a time/],
  ['negative huge time', event({ t: -1e20 }), 3, /"t" must be a time/],
  ['time as a string', event({ t: '1764064800000' }), 3, /"t" must be a time/],
  ['owner as a number', event({ owner: 17 }), 3, /"owner" must be a string/],
  ['client as a string', event({ client: '127.0.0.1:1' }), 3, /"client" must be an object/],
  ['lease as a string', event({ leaseMs: '30s' }), 3, /"leaseMs" must be a number/],
  ['holders as a string', event({ kind: 'deleted', holders: 'a,b' }), 3, /"holders" must be a list of strings/],
  ['holders of numbers', event({ kind: 'deleted', holders: [1, 2] }), 3, /"holders" must be a list of strings/],
  ['command as a string', event({ kind: 'raw', command: 'DEL x' }), 3, /"command" must be a list of strings/],
  ['unknown kind', event({ kind: 'exploded' }), 3, /"kind" must be one of attempt, acquired/],
  ['missing lock', JSON.stringify({ type: 'event', kind: 'acquired', t: 1 }), 3, /"lock" is missing/],
  ['a clock step as a string', event({ kind: 'clock-step', lock: '*', stepMs: '5s' }), 3, /"stepMs" must be a number of ms/],
  ['a recording of a newer version', JSON.stringify({ ...HEADER, version: 3 }), 3, /a recording of version 3; this redlock-cli reads versions 1 and 2: upgrade it/],
  ['Redlock nodes that are not a list', JSON.stringify({ ...HEADER, version: 2, nodes: '127.0.0.1:7001' }), 3, /the header's "nodes" must be a list of node names/],
  ['JSON null', 'null', 3, /not a JSON object/],
  ['a JSON array', '[1,2]', 3, /not a JSON object/],
  ['truncated JSON', event({}).slice(0, 40), 3, /not JSON/],
  ['binary bytes', '\u0000\u00ff\u0001\u0007garbage', 3, /not JSON/],
];

const MONITOR_CASES: readonly (readonly [name: string, text: string, line: number, message: RegExp])[] = [
  ['timestamp out of range', SET.replace('1764064800', '99999999999999999999'), 3, /timestamp is out of range/],
  ['a line cut short', SET.slice(0, -2), 3, /not a MONITOR line/],
  ['binary bytes', '\u0000\u00ff\u0001\u0007', 3, /not a MONITOR line/],
];

describe('trace --from with bad input', () => {
  const env = tempStateEnv();
  const cases = [
    ...CASES.map(([n, bad, l, m]) => [`recording: ${n}`, recording(bad), l, m] as const),
    ...MONITOR_CASES.map(([n, bad, l, m]) => [`monitor log: ${n}`, monitor(bad), l, m] as const),
  ];
  it.each(cases)('%s: one line naming file:line, exit 2', async (name, text, line, message) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.log`);
    writeFileSync(file, text);
    const { code, stdout, stderr } = await runCli(['trace', '--from', file], env);
    const out = stdout.trimEnd().split('\n');
    expect(out.at(-1)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}x {2}acquired {2}by a /);
    expect(out.every((l) => /^\d\d:\d\d:\d\d\.\d{3} {2}x {2}(attempt|acquired) {2}by a /.test(l))).toBe(true);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`redlock-cli: --from ${file}:${line}: `);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });
});
