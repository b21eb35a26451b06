import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README is a user's front page: what the tool is, how to install it, the tour of real screens,
// one short section per job, links. Details live in docs/, and history (figures from before a
// change, the commit a measurement ran on) lives in git and the CHANGELOG, not in these pages.

const readme = readFileSync('README.md', 'utf8');
const performance = readFileSync('docs/performance.md', 'utf8');
// What a commit hash looks like when a page names one (`d256ab2: 160 runs`).
const COMMIT_LIKE = /\b[0-9a-f]{7,10}\b/g;
// The tour's screens are real captures: their owner ids are random hex, not commits.
const withoutScreens = (text: string) => text.replace(/<!-- screen:([\w-]+) -->[\s\S]*?<!-- \/screen:\1 -->/g, '');

describe('the README', () => {
  it('stays a front page: at most 300 lines', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(300);
  });

  it('opens with the clone of the repository and the two commands that install and test it', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { repository: string };
    const repo = pkg.repository.replace(/^github:/, '');
    const install = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.split('\n').filter(Boolean) ?? [];
    expect(install.map((line) => line.replace(/\s+#.*$/, ''))).toEqual([
      `git clone https://github.com/${repo}.git && cd ${repo.split('/')[1]}`,
      'scripts/setup.sh',
      'npm test',
    ]);
    expect(existsSync('scripts/setup.sh')).toBe(true);
  });

  it('names no commit, outside the captured screens', () => {
    expect(withoutScreens(readme).match(COMMIT_LIKE) ?? []).toEqual([]);
    // The check sees a hash where there is one.
    expect('measured on d256ab2: 160 runs'.match(COMMIT_LIKE)).toEqual(['d256ab2']);
  });
});

describe('docs/performance.md', () => {
  it('names no commit: figures come with their command and machine, not their history', () => {
    expect(performance.match(COMMIT_LIKE) ?? []).toEqual([]);
  });

  it('gives every benchmark table the command that produced it', () => {
    for (const bench of ['locks', 'sandbox', 'inspect', 'repl', 'race', 'trace'])
      expect(performance, `bench/${bench}.ts`).toContain(`npx tsx bench/${bench}.ts`);
  });
});
