import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_WRONG_VERDICT, runCli, tempStateEnv, withoutRetryNotes } from '../helpers/run-cli.js';

// `scenario list|show|run` through run(argv, ctx), on the shipped expired-lease-misdeletion (S1):
// a single-node sandbox and two variants of ~1.5 s each.
const env = tempStateEnv();
const cli = (...argv: string[]) => runCli(['scenario', ...argv], env);
const sandboxes = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const S1 = 'expired-lease-misdeletion';

interface RunJson {
  matched: boolean;
  variants: { variant: string; expected: string[]; found: string[]; matched: boolean; outcome: string; history: { events: { kind: string }[] } }[];
}

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'redlock-cli-scenario-')), name);
  writeFileSync(path, text);
  return path;
}

describe('redlock-cli scenario', () => {
  it('list names every shipped scenario with its topology; --json has the variants and their expectations', async () => {
    const plain = await cli('list');
    expect(plain.code).toBe(0);
    expect(plain.stdout.split('\n')[0]).toMatch(/^NAME\s+TOPOLOGY\s+SUMMARY$/);
    expect(plain.stdout).toMatch(new RegExp(`^${S1}\\s+single\\s+A stalled client's plain DEL`, 'm'));
    const json = JSON.parse((await cli('list', '--json')).stdout) as { name: string; variants: { name: string; expect: string[] }[] }[];
    expect(json.find((s) => s.name === S1)?.variants).toEqual([
      { name: 'unsafe', expect: ['mutual-exclusion'] },
      { name: 'fixed', expect: [] },
    ]);
  });

  it('show prints the narration, every step in words with its variant, the variants and the sources', async () => {
    const r = await cli('show', S1);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^expired-lease-misdeletion: Expired lease misdeletion \(naive DEL\)$/m);
    expect(r.stdout).toMatch(/^lock {6}token orders$/m);
    expect(r.stdout).toMatch(/0\.03 s {2}A {9}release with a plain DEL {3}\[unsafe\]/);
    expect(r.stdout).toMatch(/0\.03 s {2}A {9}release \(owner checked\) {3}\[fixed\]/);
    // Piped, prose wraps at 80 columns; a wrapped item continues four spaces in.
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(r.stdout.replace(/\n {4}(?=\S)/g, ' ')).toMatch(/^ {2}fixed: The release checks the owner and deletes only its own lock \(expect safe\)$/m);
    expect(r.stdout).toMatch(/^sources\n {2}- Redis distributed locks page/m);
  });

  it('run --json: both variants reach their expected verdicts, exit 0, and the sandbox is gone', async () => {
    const r = await cli('run', S1, '--json');
    expect(NO_WRONG_VERDICT, r.stderr).toContain(r.code);
    expect(withoutRetryNotes(r.stderr)).toBe('');
    const out = JSON.parse(r.stdout) as RunJson;
    expect(out.matched).toBe(r.code === 0);
    // Each variant as expected, or inconclusive on a machine too busy for its timing (exit 8).
    expect(out.variants.map((v) => [v.variant, v.outcome === 'inconclusive' ? 'late' : v.found, v.matched])).toEqual([
      ['unsafe', out.variants[0]!.outcome === 'inconclusive' ? 'late' : ['mutual-exclusion'], out.variants[0]!.outcome === 'as-expected'],
      ['fixed', out.variants[1]!.outcome === 'inconclusive' ? 'late' : [], out.variants[1]!.outcome === 'as-expected'],
    ]);
    expect(out.variants[0]!.history.events.at(-1)!.kind).toBe('end');
    expect(existsSync(join(sandboxes, `scenario-${S1}`.slice(0, 32)))).toBe(false);
  }, 30_000);

  it('run without a terminal prints the text timeline, 80 columns at most, ending with one line per variant', async () => {
    const r = await cli('run', S1, '--variant', 'unsafe');
    expect(NO_WRONG_VERDICT, r.stderr).toContain(r.code);
    expect(withoutRetryNotes(r.stderr)).toBe(`running ${S1} on a single sandbox...\n`);
    const lines = r.stdout.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(r.stdout).toMatch(/^A {3}[.=]*z{10,}/m);
    expect(lines.at(-1)).toMatch(r.code === 0 ? /^ok {4}unsafe {2}expected mutual-exclusion, found mutual-exclusion$/ : /^LATE {2}unsafe {2}expected mutual-exclusion, found /);
  }, 30_000);

  it('a variant that misses its expected verdict exits 7 and says NOT AS EXPECTED', async () => {
    const shipped = readFileSync(new URL(`../../scenarios/${S1}.yaml`, import.meta.url), 'utf8');
    // The same race, but its file claims the unsafe variant is safe.
    const wrong = shipped.replace('expect: [mutual-exclusion]', 'expect: safe');
    expect(wrong).not.toBe(shipped);
    const r = await cli('run', tempFile('wrong.yaml', wrong), '--variant', 'unsafe');
    // Never "as expected": on time it is a wrong expectation (7); on a machine too busy for the
    // race's timing, even after retries, inconclusive (8), which says so.
    expect([7, 8], r.stdout).toContain(r.code);
    if (r.code === 8) {
      expect(r.stdout).toMatch(/INCONCLUSIVE\n {2}\? inconclusive after 3 runs: .* late/);
      return;
    }
    expect(r.stdout).toMatch(/verdict: expected safe, found mutual-exclusion: NOT AS EXPECTED/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('FAIL  unsafe  expected safe, found mutual-exclusion');
  }, 30_000);

  it('bad input is one line and a documented exit code, and nothing is started', async () => {
    const cases: [string[], number, RegExp][] = [
      [['run'], 2, /^redlock-cli: name a scenario to run \(redlock-cli scenario list shows them\), or use --all\n$/],
      [['run', S1, '--all'], 2, /^redlock-cli: give a scenario or --all, not both\n$/],
      [['run', S1, '--variant', 'safe'], 2, /^redlock-cli: scenario expired-lease-misdeletion has no variant "safe": use one of unsafe, fixed, or all\n$/],
      [['run', S1, '--speed', 'fast'], 2, /^redlock-cli: invalid --speed "fast": a factor from 0\.1 to 10/],
      [['run', S1, '--speed', '50'], 2, /^redlock-cli: invalid --speed "50"/],
      [['run', 'expired-lease-misdeleton'], 4, /no shipped scenario named "expired-lease-misdeleton"; did you mean expired-lease-misdeletion\?/],
      [['run', '--all', '--variant', 'fixed'], 2, /^redlock-cli: --variant picks a variant of one scenario/],
      [['run', tempFile('bad.yaml', 'title: x\n')], 2, /^redlock-cli: .*bad\.yaml:\d+:\d+: /],
      [['show', './missing.yaml'], 4, /missing\.yaml/],
    ];
    // A state dir of its own: the runs above left an (empty) sandboxes dir in theirs.
    const fresh = tempStateEnv();
    for (const [argv, code, stderr] of cases) {
      const r = await runCli(['scenario', ...argv], fresh);
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code, stdout: '' });
      expect(r.stderr).toMatch(stderr);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(fresh.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'))).toBe(false);
  });
});
