// The README's pictures of the real screens still match what the current code draws: the
// screenshot script (scripts/screens.mjs --check) captures every screen afresh from the built CLI
// in a private tmux, against servers it starts, and each capture is compared with its README
// block once times, ids and ports are normalised. A change of layout, labels or lanes fails here.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseScreen, readmeBlock, tidyCapture } from '../../scripts/screens/readme.mjs';
import { ensureBuilt } from '../helpers/build.js';

const SCREENS = ['inspect', 'hold', 'scenario', 'race', 'trace', 'repl'] as const;
const out = mkdtempSync(join(tmpdir(), 'redlock-screens-test-'));
const readme = readFileSync('README.md', 'utf8');
let result: { code: number; stdout: string; stderr: string; ms: number };
let paths: { out: string; work: string; socket: string } | undefined;

beforeAll(async () => {
  // Not a skip: without tmux the pictures cannot be checked, and that must show as a failure.
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  } catch {
    throw new Error('tmux is not installed: the README screens are captured in a real terminal (apt-get install tmux; .ci/run installs it)');
  }
  ensureBuilt();
  const started = Date.now();
  result = await new Promise((resolve) => {
    execFile(process.execPath, ['scripts/screens.mjs', '--check', '--out', out], { timeout: 120_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  paths = last.startsWith('{') ? JSON.parse(last) : undefined;
}, 150_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

const fresh = (name: string): string => readFileSync(join(out, `${name}.txt`), 'utf8');

describe('README screens (scripts/screens.mjs --check)', () => {
  it('captures every screen and finds each one matching its README block', () => {
    expect(result.stderr, result.stderr).not.toMatch(/FAILED|differs/);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([...SCREENS].map((n) => `${n}.txt`).sort());
    // Measured, for the report: the whole run on this machine.
    console.log(`screens --check took ${(result.ms / 1000).toFixed(1)} s`);
  });

  it.each(SCREENS)('%s: the fresh capture draws what the README shows (times, ids and ports aside)', (name) => {
    const block = readmeBlock(readme, name);
    expect(block, `README.md has no <!-- screen:${name} --> block`).toBeDefined();
    expect(normaliseScreen(fresh(name))).toBe(normaliseScreen(block!));
  });

  it.each(SCREENS)('%s: its capture in docs/screens/ is the picture in the README', (name) => {
    expect(tidyCapture(readFileSync(`docs/screens/${name}.txt`, 'utf8'))).toBe(readmeBlock(readme, name));
  });

  it('leaves nothing behind: no tmux server, no process under its work dir, no work dir', () => {
    expect(paths).toBeDefined();
    const { work, socket } = paths!;
    expect(existsSync(work)).toBe(false);
    expect(() => execFileSync('tmux', ['-L', socket, 'list-sessions'], { stdio: 'pipe' })).toThrow();
    const leftovers = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .flatMap((pid) => {
        try {
          const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
          return cmd.includes(work) ? [`${pid}: ${cmd}`] : [];
        } catch {
          return [];
        }
      });
    expect(leftovers).toEqual([]);
  });
});

describe('the comparison of two captures', () => {
  // Real pictures from the README, edited as a regression would edit them.
  const scenario = readmeBlock(readme, 'scenario') ?? '';
  const inspect = readmeBlock(readme, 'inspect') ?? '';
  const same = (a: string, b: string) => normaliseScreen(a) === normaliseScreen(b);

  it('ignores what changes from run to run: times, ids, ports, bar lengths, lane timing', () => {
    const otherRun = inspect
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '00000000-1111-4222-8333-444444444444')
      .replace(/\d+\.\d s/g, '9.9 s')
      .replace(/[0-9a-f]{32}/g, 'ab'.repeat(16));
    expect(otherRun).not.toBe(inspect);
    expect(same(inspect, otherRun)).toBe(true);
    // A lane whose states last a few columns longer, with a gap between holders on the node lane.
    const shifted = scenario.replace(/^(A +)(\S)/m, '$1$2$2$2').replace(/^(n1 +)(\S+?)(B)/m, '$1$2  $3');
    expect(shifted).not.toBe(scenario);
    expect(same(scenario, shifted)).toBe(true);
    // The race's quietest client with a share too small for one bar cell (a busy machine's run).
    const race = readmeBlock(readme, 'race') ?? '';
    const noCell = race.replace(/(%) █+ (\(quietest\))/, '$1 $2');
    expect(noCell).not.toBe(race);
    expect(same(race, noCell)).toBe(true);
  });

  it('catches a changed label, a lost lane, a different mark and a moved column', () => {
    expect(same(inspect, inspect.replace('expected wait', 'expected'))).toBe(false);
    expect(same(inspect, inspect.replace(/^ {2}waiters .*\n/m, ''))).toBe(false);
    expect(same(scenario, scenario.replace(/^B .*\n/m, ''))).toBe(false);
    expect(same(scenario, scenario.replace(/^(A .*)w/m, '$1r'))).toBe(false);
    expect(same(inspect, inspect.replace(/^ {2}holder/m, 'holder'))).toBe(false);
  });
});
