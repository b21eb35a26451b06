import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// CONTRIBUTING.md's map of the code stays true: every src/ directory is on it, and every path it
// names exists.
const text = readFileSync('CONTRIBUTING.md', 'utf8');

describe('CONTRIBUTING.md', () => {
  it('names every directory of src/', () => {
    const dirs = readdirSync('src', { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `src/${e.name}/`);
    expect(dirs.filter((d) => !text.includes(`\`${d}\``))).toEqual([]);
  });

  it('every path it names exists', () => {
    const paths = [...text.matchAll(/`((?:src|test|bin|bench|scenarios)\/[\w./-]*)`/g)].map((m) => m[1]!.replace(/<name>.*$/, ''));
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((p) => !existsSync(p))).toEqual([]);
  });
});
