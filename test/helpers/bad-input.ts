// The bad-input table's harness (issue 12), shared by the files that hold its rows: every row is
// something a user may type that must be refused. Each row checks the exit code, exactly one line
// on stderr (no stack, no raw control or format character), nothing on stdout, nothing with a
// password on either stream, and that no key changed on any server (DUMP and expiry time of every
// key before and after: DUMP alone misses a PEXPIRE). `plain` is the default server (REDIS_URL);
// `secured` needs a password, which rows that use it pass in their URL so a leak would show.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawClient } from './lock-env.js';
import { dumpAndExpiryAll } from './read-only.js';
import { startRedis, type RedisServer } from './redis-server.js';
import { runCli, tempStateEnv } from './run-cli.js';

export const PASSWORD = 'Sekr1t-pw-never-printed';

export interface Servers {
  /** The default server's URL and port, and a second independent one (Redlock rows). */
  readonly url: string;
  readonly port: number;
  readonly port2: number;
  /** The password-protected server: URL with the password, and its port. */
  readonly securedUrl: string;
  readonly securedPort: number;
  /** A scratch directory for files a row needs (scenario files). */
  readonly dir: string;
}

export interface Row {
  readonly name: string;
  readonly args: (s: Servers) => readonly string[];
  readonly code: number;
  /** What the one stderr line must say. */
  readonly says: RegExp;
  /** Data put on the servers before the command runs (plain, secured). */
  readonly arrange?: (plain: Redis, secured: Redis, s: Servers) => Promise<unknown>;
}

// What must never reach the terminal raw from a refusal: C0 (a newline splits the line), ESC of
// any sequence (colour included: the error is painted by us, never by the user's text), C1, and
// Unicode format characters. FORCE_COLOR=0 in runCli keeps our own colour out of the way.
const RAW = /[\x00-\x1f\x7f-\x9f\u2028\u2029\p{Cf}]/u;

/** Starts the servers, writes the row files (`files`) and runs every row as one test. */
export function describeBadInput(rows: readonly Row[], opts: { readonly files?: (dir: string) => void } = {}): void {
  let plain: RedisServer;
  let second: RedisServer;
  let secured: RedisServer;
  let raws: Redis[] = [];
  let servers: Servers;

  beforeAll(async () => {
    [plain, second, secured] = await Promise.all([startRedis(), startRedis(), startRedis({ password: PASSWORD })]);
    raws = [rawClient(plain), rawClient(second), new Redis({ host: '127.0.0.1', port: secured.port, password: PASSWORD, maxRetriesPerRequest: 1 })];
    const dir = tempStateEnv().XDG_STATE_HOME!;
    opts.files?.(dir);
    servers = { url: plain.url, port: plain.port, port2: second.port, securedUrl: secured.url, securedPort: secured.port, dir };
  });
  afterAll(async () => {
    for (const r of raws) r.disconnect();
    await Promise.all([plain, second, secured].map((s) => s?.stop()));
  });
  beforeEach(async () => {
    await Promise.all(raws.map((r) => r.flushall()));
  });

  const keyspaces = () => Promise.all(raws.map(dumpAndExpiryAll));

  describe('bad input: exit code, one stderr line, no stack, no password, no key changed', () => {
    it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
      await row.arrange?.(raws[0]!, raws[2]!, servers);
      const before = await keyspaces();
      const env = tempStateEnv({ REDIS_URL: servers.url });
      const r = await runCli(row.args(servers), env);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect({ code: r.code, lines }).toMatchObject({ code: row.code, lines: [expect.stringMatching(row.says)] });
      expect(lines[0]).not.toMatch(RAW);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at |Error:|TypeError/);
      expect(`${r.stdout}${r.stderr}`).not.toContain(PASSWORD);
      expect(await keyspaces()).toEqual(before);
    });
  });
}
