import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_WRONG_VERDICT, runCli, withoutRetryNotes, tempStateEnv } from '../helpers/run-cli.js';

// `scenario run --all` without a terminal, pointed with --dir at a directory of two small copies
// of shipped scenarios (single-node sandboxes, ~1.5 s per variant): the same path as the whole
// catalogue, in a few seconds. At speed 1, as the catalogue's own tests run them: --speed 2 leaves
// too little slack for a busy machine (the get-then-del race missed its verdict once that way).
const env = tempStateEnv();
const cli = (...argv: string[]) => runCli(['scenario', 'run', ...argv], env);
const sandboxes = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const shipped = (name: string): string => join(fileURLToPath(new URL('../../scenarios/', import.meta.url)), `${name}.yaml`);
const S1 = 'expired-lease-misdeletion';
const S3 = 'get-then-del-race';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A temp directory holding copies of shipped scenarios, and files written from text. */
function scenarioDir(copies: string[], written: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-cli-scenarios-'));
  dirs.push(dir);
  for (const name of copies) copyFileSync(shipped(name), join(dir, `${name}.yaml`));
  for (const [file, text] of Object.entries(written)) writeFileSync(join(dir, file), text);
  return dir;
}

// A valid file whose run fails: the sandbox starts, then redis-server has no such setting.
const BROKEN = 'broken-config';
const brokenText = (): string => {
  const text = readFileSync(shipped(S3), 'utf8').replace('sandbox: { topology: single }', 'sandbox: { topology: single, config: { no-such-setting: 1 } }');
  expect(text).toContain('no-such-setting');
  return text;
};

interface AllJson {
  name: string;
  title: string;
  matched: boolean;
  error?: string;
  variants: { variant: string; found: string[]; matched: boolean; outcome: string }[];
}

describe('redlock-cli scenario run --all', () => {
  it('without a terminal: one progress line per scenario on stderr, the summary table on stdout, exit 0', async () => {
    const r = await cli('--all', '--dir', scenarioDir([S3, S1]));
    // 8 only when the machine was too busy for a variant's timing (inconclusive, marked ? and LATE).
    expect(NO_WRONG_VERDICT, r.stdout + r.stderr).toContain(r.code);
    // Files run in name order, each reported as it ends.
    expect(withoutRetryNotes(r.stderr)).toMatch(new RegExp(`^(ok {2}|LATE) {2}${S1} \\(\\d+\\.\\d s\\)\\n(ok {2}|LATE) {2}${S3} \\(\\d+\\.\\d s\\)\\n$`));
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^SCENARIO\s+VARIANTS\s+VERDICTS\s+TIME$/);
    expect(lines[1]).toMatch(new RegExp(`^${S1}\\s+2  unsafe [✓?]  fixed [✓?]\\s+\\d`));
    expect(lines[2]).toMatch(new RegExp(`^${S3}\\s+2  unsafe [✓?]  fixed [✓?]\\s+\\d`));
    expect(lines[3]).toMatch(r.code === 0 ? /^2 scenarios in .+, all as expected$/ : /^2 scenarios in .+, \d inconclusive \(machine too busy\): /);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(readdirSync(sandboxes)).toEqual([]);
  }, 30_000);

  it('--json lists a scenario that errored with its error next to the ones that ran, and exits 7', async () => {
    const r = await cli('--all', '--dir', scenarioDir([S1], { [`${BROKEN}.yaml`]: brokenText() }), '--json');
    expect(r.code).toBe(7);
    const out = JSON.parse(r.stdout) as AllJson[];
    expect(out.map((s) => s.name)).toEqual([BROKEN, S1]);
    expect(out[0]).toEqual({
      name: BROKEN,
      title: 'GET-then-DEL release race (check-then-act)',
      matched: false,
      error: expect.stringMatching(/unknown redis-server setting "no-such-setting"/) as unknown,
      variants: [],
    });
    expect(out[1]!.error).toBeUndefined();
    // Each variant as expected, or inconclusive when the machine was too busy (never wrong).
    const ran = out[1]!.variants.map((v) => [v.variant, v.outcome === 'inconclusive' ? 'late' : v.found, v.matched]);
    expect(ran).toEqual([
      ['unsafe', ran[0]![1] === 'late' ? 'late' : ['mutual-exclusion'], ran[0]![1] !== 'late'],
      ['fixed', ran[1]![1] === 'late' ? 'late' : [], ran[1]![1] !== 'late'],
    ]);
    expect(out[1]!.matched).toBe(ran.every((v) => v[2] === true));
    // stdout is the JSON alone; the failure is also said on stderr.
    expect(r.stderr).toMatch(new RegExp(`^FAIL  ${BROKEN}: unknown redis-server setting "no-such-setting"`));
    expect(readdirSync(sandboxes)).toEqual([]);
  }, 30_000);

  it('without --json, an errored scenario is a FAIL line, an error row and the total names it; exit 7', async () => {
    const r = await cli('--all', '--dir', scenarioDir([], { [`${BROKEN}.yaml`]: brokenText() }));
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(new RegExp(`^FAIL  ${BROKEN}: unknown redis-server setting "no-such-setting"[^\\n]*\\n$`));
    const lines = r.stdout.trimEnd().split('\n');
    // The table cuts an error to the verdict column's width; stderr above has it whole.
    expect(lines[1]).toMatch(new RegExp(`^${BROKEN}\\s+-  error: `));
    expect(lines.at(-1)).toBe(`1 scenario in 0 ms, 1 not as expected: ${BROKEN}`);
  }, 30_000);

  it('bad --dir input is one line and a documented exit code, before any sandbox starts', async () => {
    const fresh = tempStateEnv();
    const empty = scenarioDir([]);
    const badFile = scenarioDir([S1], { 'bad.yaml': 'title: x\n' });
    const cases: [string[], number, RegExp][] = [
      [['--all', '--dir', join(empty, 'nope')], 4, /^redlock-cli: scenario directory not found: .*nope\n$/],
      [['--all', '--dir', shipped(S1)], 2, /^redlock-cli: --dir .* is not a directory/],
      [['--all', '--dir', empty], 2, /^redlock-cli: no scenario files \(\.yaml or \.yml\) in /],
      [['--all', '--dir', badFile], 2, /^redlock-cli: .*bad\.yaml:\d+:\d+: /],
      [[S1, '--dir', empty], 2, /^redlock-cli: --dir names the directory --all runs/],
    ];
    for (const [argv, code, stderr] of cases) {
      const r = await runCli(['scenario', 'run', ...argv], fresh);
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code, stdout: '' });
      expect(r.stderr).toMatch(stderr);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(fresh.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'))).toBe(false);
  });
});
