import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// STYLE.md: core/ decodes and computes; it must stay free of I/O so it is testable as tables.
const FORBIDDEN = /from ['"](ioredis|ink|react|chalk|node:fs|node:net|node:child_process|fs|net|child_process)['"]|\bprocess\./;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('layers', () => {
  it('src/core imports no I/O, UI or process', () => {
    const offenders = filesUnder('src/core').filter((f) => FORBIDDEN.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
  it('only src/redis, src/locks and src/sandbox import ioredis; src/ui never does', () => {
    const offenders = filesUnder('src')
      .filter((f) => /from ['"]ioredis['"]/.test(readFileSync(f, 'utf8')))
      .filter((f) => !/^src\/(redis|sandbox)\//.test(f));
    expect(offenders).toEqual([]);
  });
  it('one-shot commands never import ink or react statically', () => {
    const offenders = filesUnder('src/commands').filter((f) => /^import [^(]*from ['"](ink|react)['"]/m.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
