// Where each library we decode keeps its Lua: the repository, the release tags scanned, the files
// that hold lock scripts at those tags, and the language their literals are written in. This table
// and the extraction rules in literals.ts are ours; the libraries' code is read from a checkout
// given on the command line and never copied into this repository.

import type { SourceLanguage } from './literals.js';

export interface LibrarySource {
  /** The catalogue's name for the library. */
  readonly library: string;
  /** Where the text comes from: `owner/name` on GitHub, or a package (`npm:redis-semaphore`). */
  readonly repo: string;
  /** `lua`: each file is one whole script (ours, as scriptSource() builds it). */
  readonly language: SourceLanguage | 'lua';
  /** Paths (at a tag, or under a directory) whose literals are read. */
  readonly files: RegExp;
  /** Release tags scanned, when read from a git directory. */
  readonly tags: RegExp;
  /** How the script's text is taken from the source, for the provenance of each entry. */
  readonly extraction: string;
}

const EXTRACTION: Record<LibrarySource['language'], string> = {
  lua: 'scriptSource() of src/redis/scripts.ts: the prelude helpers the script calls, then its file, as sent',
  java: 'Java string literals joined by + (escapes decoded), as passed to eval*Async',
  js: 'JavaScript/TypeScript template or quoted literal (escapes decoded), as hashed by the client',
  go: 'Go raw string (carriage returns dropped) or interpreted string, as given to redis.NewScript',
  python: 'Python string literal (escapes decoded, adjacent literals joined), as given to register_script',
};

const source = (s: Omit<LibrarySource, 'extraction'>): LibrarySource => ({ ...s, extraction: EXTRACTION[s.language] });

export const LIBRARY_SOURCES: readonly LibrarySource[] = [
  source({
    library: 'redisson',
    repo: 'redisson/redisson',
    language: 'java',
    // Lock, fair, read-write, fenced and spin locks, the watchdog (RedissonBaseLock, then renewal/),
    // semaphores, the count-down latch, the rate limiter and the group multi-lock.
    files:
      /^redisson\/src\/main\/java\/org\/redisson\/(?:Redisson(?:Lock|BaseLock|FairLock|ReadLock|WriteLock|FencedLock|SpinLock|Semaphore|PermitExpirableSemaphore|CountDownLatch|RateLimiter|FasterMultiLock)|renewal\/\w+)\.java$/,
    tags: /^redisson-[34]\.\d+\.\d+$/,
  }),
  source({
    library: 'node-redlock',
    repo: 'mike-marcacci/node-redlock',
    language: 'js',
    files: /^(?:redlock\.js|src\/index\.ts)$/,
    tags: /^v[45]\.\d+\.\d+(?:-[\w.]+)?$/,
  }),
  source({
    library: 'redsync',
    repo: 'go-redsync/redsync',
    language: 'go',
    files: /^[\w-]+(?<!_test)\.go$/,
    tags: /^v\d+(?:\.\d+\.\d+)?$/,
  }),
  source({
    library: 'redis-py',
    repo: 'redis/redis-py',
    language: 'python',
    files: /^redis\/(?:asyncio\/)?lock\.py$/,
    tags: /^v?\d+\.\d+\.\d+$/,
  }),
  source({
    library: 'spring-integration',
    repo: 'spring-projects/spring-integration',
    language: 'java',
    // RedisLockRegistry keeps every lock script as a text block (obtain, renew, the unlocks).
    files: /^spring-integration-redis\/src\/main\/java\/org\/springframework\/integration\/redis\/util\/RedisLockRegistry\.java$/,
    tags: /^v[67]\.\d+\.\d+$/,
  }),
  source({
    library: 'shedlock',
    repo: 'lukas-krecan/ShedLock',
    language: 'java',
    // Every Redis provider (Spring, Jedis, Lettuce) runs the scripts of this one class, 6.7.0 on;
    // before that they sent only SET NX / SET XX / DEL.
    files: /^providers\/redis\/shedlock-support-redis\/src\/main\/java\/net\/javacrumbs\/shedlock\/provider\/redis\/support\/InternalRedisLockProvider\.java$/,
    tags: /^shedlock-parent-[5-7]\.\d+\.\d+$/,
  }),
  source({
    library: 'python-redis-lock',
    repo: 'ionelmc/python-redis-lock',
    language: 'python',
    files: /^src\/redis_lock\/__init__\.py$/,
    tags: /^v\d+\.\d+\.\d+$/,
  }),
  source({
    library: 'bsm-redislock',
    repo: 'bsm/redislock',
    language: 'go',
    // Literals in redislock.go up to v0.9.4; from v0.10.0 the scripts are files it embeds whole.
    files: /^(?:[\w-]+(?<!_test)\.go|[\w-]+\.lua)$/,
    tags: /^v\d+\.\d+\.\d+$/,
  }),
  source({
    library: 'redlock-cli',
    repo: 'this repository',
    language: 'lua',
    files: /^src\/redis\/lua\/[\w-]+\.lua$/,
    tags: /^$/,
  }),
  source({
    library: 'redis-semaphore',
    repo: 'swarthy/redis-semaphore (tags) and npm:redis-semaphore (the installed package)',
    language: 'js',
    // The TypeScript sources at each tag; the compiled package keeps each template literal as written.
    files: /^(?:src\/(?!.*\.test\.ts$).*\.ts|lib\/.*\.js)$/,
    tags: /^v\d+\.\d+\.\d+$/,
  }),
];

export function librarySource(name: string): LibrarySource | undefined {
  return LIBRARY_SOURCES.find((s) => s.library === name);
}
