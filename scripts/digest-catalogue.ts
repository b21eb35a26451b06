// Regenerates one library's part of the trace's digest catalogue (src/core/trace/digests.json), or
// checks it (--check: exit 1 naming every digest that differs). docs/trace-digests.md has the
// commands that produced the committed data.
//
//   npx tsx scripts/digest-catalogue.ts redisson --git-dir <redisson.git> [--tags a,b,...]
//   npx tsx scripts/digest-catalogue.ts redis-semaphore --git-dir <redis-semaphore.git> --dir node_modules/redis-semaphore --release 5.8.0
//   npx tsx scripts/digest-catalogue.ts redlock-cli --check

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { librarySource } from './digests/libraries.js';
import { catalogueDiff, libraryScan, mergeLibrary, readCatalogue, writeCatalogue } from './digests/catalogue.js';

const USAGE =
  'usage: digest-catalogue.ts <library> (--git-dir DIR [--tags a,b] | --dir DIR --release NAME) [--out FILE] [--check]';

function main(): number {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'git-dir': { type: 'string' },
      tags: { type: 'string' },
      dir: { type: 'string' },
      release: { type: 'string' },
      out: { type: 'string', default: 'src/core/trace/digests.json' },
      check: { type: 'boolean', default: false },
    },
  });
  const source = librarySource(positionals[0] ?? '');
  if (!source) {
    process.stderr.write(`unknown library "${positionals[0] ?? ''}": ${USAGE}\n`);
    return 2;
  }
  const own = source.library === 'redlock-cli';
  const release = own ? (JSON.parse(readFileSync('package.json', 'utf8')).version as string) : values.release;
  const dirPath = own ? '.' : values.dir;
  const input = {
    gitDir: values['git-dir'],
    tags: values.tags?.split(',').filter(Boolean),
    dir: dirPath !== undefined && release !== undefined ? { path: dirPath, release } : undefined,
  };
  if (input.gitDir === undefined && input.dir === undefined) {
    process.stderr.write(`${source.library} needs its sources: ${USAGE}\n`);
    return 2;
  }
  const scan = libraryScan(source, input);
  for (const where of scan.dynamic) process.stderr.write(`skipped (not a constant string): ${where}\n`);
  const current = readCatalogue(values.out);
  if (values.check) {
    const diff = catalogueDiff(current, scan);
    for (const line of diff) process.stderr.write(`${line}\n`);
    if (diff.length > 0)
      process.stderr.write(
        `${values.out} is out of date for ${source.library}: regenerate it (docs/trace-digests.md)\n`,
      );
    return diff.length > 0 ? 1 : 0;
  }
  writeCatalogue(values.out, mergeLibrary(current, scan));
  process.stdout.write(
    `${source.library}: ${scan.digests.length} digests from ${scan.summary.releasesScanned} release(s)\n`,
  );
  return 0;
}

process.exitCode = main();
