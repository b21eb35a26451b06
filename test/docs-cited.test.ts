import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Comments and help texts in src/ cite docs by path (`docs/redisson-protocol.md §2.3`,
// `docs/json/who.schema.json`, `docs/guide/trace.md`): each cited file must be in the repo, each
// cited section must be a heading in it, and no comment may cite a note by a bare name that only
// exists outside the repo.

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : /\.(tsx?|lua)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const sources = filesUnder('src').map((file) => ({ file, text: readFileSync(file, 'utf8') }));

describe('notes cited by the source', () => {
  it('are files in docs/, with the sections cited', () => {
    const missing: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/docs\/((?:[\w-]+\/)*[\w.-]+\.(?:md|json))((?:,? ?§[\d.]+)*)/g)) {
        const doc = join('docs', m[1]!);
        if (!existsSync(doc)) {
          missing.push(`${file}: ${doc}`);
          continue;
        }
        const headings = readFileSync(doc, 'utf8');
        for (const section of m[2]!.matchAll(/§([\d.]+)/g)) {
          const number = section[1]!.replace(/\.$/, '');
          if (!new RegExp(`^#+ ${number.replace(/\./g, '\\.')}\\.? `, 'm').test(headings))
            missing.push(`${file}: ${doc} §${number}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('never by a bare name that is not in the repo', () => {
    const bare = sources.filter(({ text }) =>
      /(?<![\w/-])(redisson-protocol|lock-formats|fault-recipes|scenarios|STYLE|PRODUCT)\.md/.test(text),
    );
    expect(bare.map((s) => s.file)).toEqual([]);
  });
});
