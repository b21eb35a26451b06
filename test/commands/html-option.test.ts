import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `--html FILE` is checked before anything runs: a page that could not be written must not cost
// a whole race or scenario, and must not leave a half-run behind. One line, exit 2.

const env = tempStateEnv();
const dir = mkdtempSync(join(tmpdir(), 'redlock-html-option-'));
const log = join(dir, 'empty.log');
writeFileSync(log, 'OK\n');
const missing = join(dir, 'no-such-dir', 'page.html');

describe('--html', () => {
  it.each([
    ['trace --from', ['trace', '--from', log, '--html', missing]],
    ['race', ['race', 'orders', '--url', 'redis://127.0.0.1:1', '--html', missing]],
    ['scenario run', ['scenario', 'run', 'gc-pause-no-fencing', '--html', missing]],
  ])('%s into a directory that does not exist: exit 2 before it starts, one line', async (_name, argv) => {
    const r = await runCli(argv, env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`--html ${missing}: no directory`);
  });

  it('names a directory given as the file', async () => {
    const r = await runCli(['trace', '--from', log, '--html', dir], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is a directory: give a file name');
  });

  it('goes with one scenario, not --all', async () => {
    const r = await runCli(['scenario', 'run', '--all', '--html', join(dir, 'all.html')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--html writes the page of one scenario run; it does not go with --all');
  });
});
