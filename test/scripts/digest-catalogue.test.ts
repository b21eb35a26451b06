import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  catalogueDiff,
  libraryScan,
  mergeLibrary,
  readCatalogue,
  writeCatalogue,
} from '../../scripts/digests/catalogue.js';
import { type LibrarySource, librarySource } from '../../scripts/digests/libraries.js';
import { DIGEST_CATALOGUE } from '../../src/core/trace/digest-catalogue.js';
import { SCRIPTS, type ScriptName, scriptSource } from '../../src/redis/scripts.js';

// The catalogue generator on a fixture library: a git repository made here with one fake Java
// lock class, its script changed in one release and not in the next. The generator must find the
// same digests as the SHA1 of the strings written out below, say in which releases the scripts
// changed, and its check must fail once a release changes a body the committed data lacks.

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'digest-fixture-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const ACQUIRE_V1 =
  "if (redis.call('exists', KEYS[1]) == 0) then redis.call('hincrby', KEYS[1], ARGV[2], 1); return nil; end; return redis.call('pttl', KEYS[1]);";
const ACQUIRE_V2 =
  "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); return nil; end; return redis.call('pttl', KEYS[1]);";
const UNLOCK =
  "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; redis.call('hincrby', KEYS[1], ARGV[3], -1); return \"done\"\n";

/** The fake library's source: each script a Java concatenation, as Redisson writes them. */
function javaSource(acquire: string): string {
  const split = (s: string) =>
    s
      .match(/.{1,40}/gs)!
      .map((part) => JSON.stringify(part))
      .join(' + // a comment\n        ');
  return `class FakeLock {
    Object tryLockInnerAsync() {
        return eval(${split(acquire)}, keys);
    }
    Object unlockInnerAsync() {
        return eval(${split(UNLOCK)}, keys);
    }
    Object dynamicScript(String field) {
        return eval("redis.call('hdel', KEYS[1], '" + field + "')", keys);
    }
}
`;
}

const FAKE: LibrarySource = {
  library: 'fake-lock',
  repo: 'fixture/fake-lock',
  language: 'java',
  files: /^src\/.*\.java$/,
  tags: /^v\d+\.\d+\.\d+$/,
  extraction: 'Java string literals joined by +',
};

function fixtureRepo(): { dir: string; release(tag: string, acquire: string): void } {
  const dir = join(work, 'fake-lock');
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.invalid',
  };
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env, stdio: 'pipe' });
  execFileSync('git', ['init', '-q', dir], { env });
  execFileSync('mkdir', ['-p', join(dir, 'src')]);
  return {
    dir,
    release(tag, acquire) {
      writeFileSync(join(dir, 'src', 'FakeLock.java'), javaSource(acquire));
      writeFileSync(join(dir, 'README'), tag);
      git('add', '-A');
      git('commit', '-qm', tag);
      git('tag', tag);
    },
  };
}

describe('digest catalogue generator', () => {
  const repo = fixtureRepo();
  repo.release('v1.0.0', ACQUIRE_V1);
  repo.release('v1.1.0', ACQUIRE_V2);
  repo.release('v1.2.0', ACQUIRE_V2);
  const gitDir = join(repo.dir, '.git');

  it("reads each release's scripts as the client sends them: digests, intents, releases, provenance", () => {
    const scan = libraryScan(FAKE, { gitDir });
    expect(scan.digests.map((d) => [d.sha1, d.intent, d.first, d.last, d.near])).toEqual(
      [
        [sha1(ACQUIRE_V1), 'acquire', 'v1.0.0', 'v1.0.0', 'tryLockInnerAsync'],
        [sha1(ACQUIRE_V2), 'acquire', 'v1.1.0', 'v1.2.0', 'tryLockInnerAsync'],
        [sha1(UNLOCK), 'release', 'v1.0.0', 'v1.2.0', 'unlockInnerAsync'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    expect(scan.digests.every((d) => d.file === 'src/FakeLock.java')).toBe(true);
    expect(scan.summary.scriptsChangedAt.map((c) => c.release)).toEqual(['v1.0.0', 'v1.1.0']);
    // The script built around a variable has no digest to know in advance.
    const line = (acquire: string) =>
      javaSource(acquire)
        .split('\n')
        .findIndex((l) => l.includes('hdel')) + 1;
    expect(scan.dynamic).toEqual([
      `v1.0.0 src/FakeLock.java:${line(ACQUIRE_V1)}`,
      `v1.1.0 src/FakeLock.java:${line(ACQUIRE_V2)}`,
      `v1.2.0 src/FakeLock.java:${line(ACQUIRE_V2)}`,
    ]);
    // Only the tags given are read.
    expect(
      libraryScan(FAKE, { gitDir, tags: ['v1.0.0'] })
        .digests.map((d) => d.sha1)
        .sort(),
    ).toEqual([sha1(ACQUIRE_V1), sha1(UNLOCK)].sort());
  });

  it('the check passes on what it wrote and fails once a release changes a body', () => {
    const file = join(work, 'digests.json');
    writeCatalogue(file, mergeLibrary(readCatalogue(file), libraryScan(FAKE, { gitDir })));
    expect(catalogueDiff(readCatalogue(file), libraryScan(FAKE, { gitDir }))).toEqual([]);

    const changed = `${ACQUIRE_V2} -- changed`;
    repo.release('v1.3.0', changed);
    const diff = catalogueDiff(readCatalogue(file), libraryScan(FAKE, { gitDir }));
    expect(diff).toHaveLength(2);
    expect(diff.find((l) => l.startsWith('new digest'))).toMatch(
      new RegExp(`^new digest ${sha1(changed)}: fake-lock tryLockInnerAsync`),
    );
    // The unchanged unlock is now sent by one more release than the committed entry says.
    expect(diff.find((l) => l.startsWith('changed entry'))).toMatch(
      new RegExp(`^changed entry ${sha1(UNLOCK)}: .*v1\\.0\\.0\\.\\.v1\\.2\\.0\\) -> .*v1\\.0\\.0\\.\\.v1\\.3\\.0\\)`),
    );
  });

  it('our own scripts: the catalogue has the digest of every one, exactly as the registry sends it', () => {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
      const entry = DIGEST_CATALOGUE.digests.find((d) => d.sha1 === sha1(scriptSource(name)));
      expect(entry, name).toMatchObject({ library: 'redlock-cli', file: `src/redis/lua/${SCRIPTS[name].file}` });
    }
  });

  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/digest-catalogue.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('the committed data matches a regeneration of our scripts, and has every script of the installed redis-semaphore', () => {
    const run = cli('redlock-cli', '--check');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // Its tags need its repository; the package this checkout installed is at hand.
    const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/redis-semaphore/package.json'), 'utf8'))
      .version as string;
    const installed = libraryScan(librarySource('redis-semaphore')!, {
      dir: { path: join(ROOT, 'node_modules/redis-semaphore'), release: version },
    });
    expect(installed.digests.length).toBeGreaterThan(0);
    for (const d of installed.digests) {
      expect(
        DIGEST_CATALOGUE.digests.find((c) => c.sha1 === d.sha1),
        d.near,
      ).toMatchObject({ library: 'redis-semaphore', intent: d.intent, last: version });
    }
  }, 60_000);

  it('the command exits 1 naming what differs when the committed data is stale', () => {
    const stale = join(work, 'stale.json');
    const current = readCatalogue(join(ROOT, 'src/core/trace/digests.json'));
    const dropped = current.digests.find((d) => d.library === 'redlock-cli')!;
    writeCatalogue(stale, { ...current, digests: current.digests.filter((d) => d !== dropped) });
    const run = cli('redlock-cli', '--check', '--out', stale);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`new digest ${dropped.sha1}: redlock-cli`);
    expect(run.stderr).toContain('is out of date for redlock-cli: regenerate it (docs/trace-digests.md)');
  }, 60_000);
});
