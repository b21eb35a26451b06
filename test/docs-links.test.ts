import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anchors, brokenLinks, linkTargets, markdownFiles, slug } from './helpers/markdown-links.js';

// The README links into docs/ and the docs link to each other, to sections of each other and back:
// a page moved or a heading renamed must not leave a link that points nowhere.

const root = resolve('.');

describe('links in the repository markdown', () => {
  it('every relative link reaches a file, and every #anchor a heading', () => {
    const files = markdownFiles(root);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/performance.md', 'docs/guide/trace.md']),
    );
    expect(brokenLinks(root, files)).toEqual([]);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-docs-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('slugs headings as GitHub does', () => {
    expect(slug('Keyspace notifications (`--source keyspace`)')).toBe('keyspace-notifications---source-keyspace');
    expect(slug('Interoperability, as tested')).toBe('interoperability-as-tested');
    expect(slug('Fences: knowing that a script ended')).toBe('fences-knowing-that-a-script-ended');
    expect([...anchors('# A\n## Notes\n```\n## Not a heading\n```\n## Notes\n')]).toEqual(['a', 'notes', 'notes-1']);
  });

  it('reads links outside code only', () => {
    const page =
      'See [a](a.md#x) and ![b](b.png).\n`[c](c.md)`\n```\n[d](d.md)\n```\n[e]: e.md\n[f](https://example.com)';
    expect(linkTargets(page)).toEqual(['a.md#x', 'b.png', 'https://example.com', 'e.md']);
  });

  it('finds a missing file, a missing anchor and a link out of the repository, and passes good ones', () => {
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'guide.md'), '# Guide\n\n## Exit codes\n\nBack to [the top](../README.md#tool).\n');
    writeFileSync(
      join(dir, 'README.md'),
      [
        '# Tool',
        '[guide](docs/guide.md), [codes](docs/guide.md#exit-codes), [here](#tool), [folder](docs/)',
        '[gone](docs/missing.md), [old section](docs/guide.md#speed), [above](../elsewhere.md)',
      ].join('\n'),
    );
    expect(brokenLinks(dir, markdownFiles(dir))).toEqual([
      'README.md: docs/missing.md (no such file)',
      'README.md: docs/guide.md#speed (no heading with that anchor)',
      'README.md: ../elsewhere.md (outside the repository)',
    ]);
  });
});
