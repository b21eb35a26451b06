import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETION_WALK } from '../../src/commands/completion-walk.js';
import { type KeyCache, formatKeyCache, keysStarting, lineKey, scanFor, withIndexEntry } from '../../src/core/completion-cache.js';
import { completionTable } from '../../src/core/completion-table.js';
import { type CommandNode, candidateLines, DEFAULT_WORDBREAKS } from '../../src/core/completion.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Where a lock key goes, the scripts' awk answers from the key cache the index names for the
// line, as `__complete --keys` would from the same file (completion-key-tab.ts: scanFor, then
// keysStarting, then candidateLines): this runs both over caches of several scans and words, and
// checks that awk finds the entry node wrote for a line whatever password is typed, and leaves
// to node what it cannot read (an escaped key, a --sandbox line).

const run = promisify(execFile);
let table: string;
let home: string;
const state = (): string => join(home, 'state');
const cacheDir = (): string => join(state(), 'redlock-cli', 'completion');

beforeAll(async () => {
  const tree = JSON.parse((await runCli(['__complete', '--tree'], tempStateEnv())).stdout) as CommandNode;
  table = completionTable(tree, []);
  home = mkdtempSync(join(tmpdir(), 'redlock-walk-keys-'));
  mkdirSync(cacheDir(), { recursive: true, mode: 0o700 });
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const FILE = 'keys-0123abcd.txt';

/** Writes `cache` and an index naming it for this line. */
function remember(cache: KeyCache, connection: readonly string[], redisUrl?: string): void {
  writeFileSync(join(cacheDir(), FILE), formatKeyCache(cache));
  writeFileSync(join(cacheDir(), 'index'), withIndexEntry('', lineKey(connection, redisUrl)!, FILE));
}

/** awk's answer to `inspect <connection> <word>`. */
async function walk(shell: 'bash' | 'zsh', line: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const child = run('awk', ['--', COMPLETION_WALK, shell, 'inspect', ...line], { env: { PATH: process.env.PATH, XDG_STATE_HOME: state(), COMP_WORDBREAKS: DEFAULT_WORDBREAKS, ...env } });
  child.child.stdin!.end(table);
  return (await child).stdout.split('\n').slice(0, -1);
}

/** What `__complete --keys` prints from the same cache, or the hand-over when no scan answers. */
function node(shell: 'bash' | 'zsh', cache: KeyCache, word: string): string[] {
  const scan = scanFor(cache, word);
  if (!scan) return [':keys', `=${word}`];
  return [...candidateLines(keysStarting(scan, word), word, shell === 'bash' ? DEFAULT_WORDBREAKS : undefined), ':'];
}

// Read a minute from now: fresh, so awk starts no refresh.
const at = Date.now() + 60_000;
const CACHES: KeyCache[] = [
  {
    server: 'redis://h:1',
    scans: [
      { prefix: 'ord', complete: true, at, keys: [{ value: 'orders:1', description: 'reentrant' }, { value: 'orders:2', description: 'fair' }] },
      { prefix: '', complete: false, at, keys: [{ value: 'a' }, { value: 'orders:1', description: 'reentrant' }] },
      { prefix: 'pay', complete: false, at, keys: [{ value: 'payments', description: 'fenced' }] },
    ],
  },
  { server: 'redis://h:1', scans: [{ prefix: '', complete: true, at, keys: [{ value: 'a:b', description: 'reentrant' }, { value: 'orders:1' }] }] },
];
const WORDS = ['', 'o', 'ord', 'orders:', 'orders:2', 'pay', 'paym', 'a:', 'x'];

describe('lock keys from the awk walk', () => {
  it('answers each word from the scan node would pick, as node prints it', async () => {
    let answered = 0;
    for (const cache of CACHES) {
      remember(cache, []);
      for (const shell of ['bash', 'zsh'] as const) {
        const got = await Promise.all(WORDS.map((w) => walk(shell, [w])));
        WORDS.forEach((w, i) => expect([shell, w, got[i]]).toEqual([shell, w, node(shell, cache, w)]));
        answered += got.filter((g) => g[0] !== ':keys').length;
      }
    }
    expect(answered).toBeGreaterThan(20);
  });

  it('finds the entry node wrote for a line whatever password it types, in a URL, with -a or in REDIS_URL', async () => {
    const cache = CACHES[1]!;
    remember(cache, ['--url', 'redis://app:secret@h:1'], 'redis://:pw@h:2');
    const env = { REDIS_URL: 'redis://:other@h:2' };
    expect(await walk('zsh', ['-u', 'redis://app:typed-else@h:1', 'a'], env)).toEqual(['a:b\treentrant', ':']);
    remember(cache, ['--port', '1', '--pass', 'secret']);
    expect(await walk('zsh', ['-p', '1', '-a', 'another', 'a'])).toEqual(['a:b\treentrant', ':']);
    expect(await walk('zsh', ['-p', '1', '--pass=x', 'a'])).toEqual(['a:b\treentrant', ':']);
    // Another port is another line: node answers it.
    expect((await walk('zsh', ['-p', '2', 'a']))[0]).toBe(':keys');
    expect(readFileSync(join(cacheDir(), 'index'), 'utf8')).not.toMatch(/secret|pw/);
  });

  it('leaves to node a file with an escaped key and a --sandbox line', async () => {
    remember({ server: 's', scans: [{ prefix: '', complete: true, at, keys: [{ value: 'tab\there' }] }] }, []);
    expect((await walk('zsh', ['t']))[0]).toBe(':keys');
    expect(lineKey(['--sandbox', 'default'], undefined)).toBeUndefined();
  });

  it('starts the refresh of a stale scan in the background, the line quoted for sh', async () => {
    const stub = join(home, 'stub');
    const started = join(home, 'started');
    writeFileSync(stub, `#!/bin/sh\nfor a in "$@"; do echo "$a"; done > '${started}.part'\nmv '${started}.part' '${started}'\n`);
    chmodSync(stub, 0o755);
    remember({ server: 's', scans: [{ prefix: '', complete: true, at: Date.now() - 60_000, keys: [{ value: "it's" }] }] }, ['--url', "redis://o'k@h:1"]);
    expect(await walk('zsh', ['-u', "redis://o'k@h:1", "it'"], { REDLOCK_CLI_BIN: stub })).toEqual(["it's", ':']);
    for (let i = 0; i < 200 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(started, 'utf8')).toBe(`__complete\n--keys\nzsh\n=it'\n--url\nredis://o'k@h:1\n`);
  });
});
