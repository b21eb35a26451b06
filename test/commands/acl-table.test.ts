import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-codes.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Least privilege (docs/acl.md): every read-only command for users from admin down to an
// on-call user with only +@read +@connection +info, on a real server with real ACL users. Each
// case works, or refuses in one line naming the exact rule (exit 10) and the other source where
// one needs less; and the server's ACL LOG holds no denied write afterwards.

const BASE = ['-@all', '+@read', '+@connection', '+info'];
const USERS = {
  admin: ['+@all'],
  oncall: BASE,
  monitor: [...BASE, '+monitor'],
  pubsub: [...BASE, '+@pubsub'],
} as const;
type User = keyof typeof USERS;

interface Case {
  readonly argv: readonly string[];
  /** The users it refuses, and the rule the refusal names. */
  readonly refuses?: { readonly users: readonly User[]; readonly rule: string; readonly instead: string };
}

const CASES: Record<string, Case> = {
  inspect: { argv: ['inspect', 'orders', 'stock'] },
  ls: { argv: ['ls'] },
  doctor: { argv: ['doctor'] },
  'inspect --watch --json': { argv: ['inspect', 'orders', '--watch', '--json', '--interval', '100ms', '--count', '3'] },
  // Without +monitor it resolves from the owner directory and the libraries' labels, saying so (not a refusal).
  who: { argv: ['who', '--sample', '1s'] },
  'trace (MONITOR)': { argv: ['trace', '--for', '1s'], refuses: { users: ['oncall', 'pubsub'], rule: '+monitor', instead: '--source keyspace' } },
  'trace --source keyspace': {
    argv: ['trace', '--source', 'keyspace', '--for', '1s'],
    refuses: { users: ['oncall', 'monitor'], rule: '+psubscribe', instead: '--source monitor' },
  },
};

let server: RedisServer;
let raw: Redis;

beforeAll(async () => {
  server = await startRedis({ args: ['--notify-keyspace-events', 'KA'] });
  raw = rawClient(server);
  for (const [name, rules] of Object.entries(USERS)) await raw.call('ACL', 'SETUSER', name, 'on', '>pw', '~*', '&*', ...rules);
  await raw.hset('orders', owner(1), '2');
  await raw.pexpire('orders', 600_000);
  await raw.set('stock', 'not a lock');
  await raw.call('ACL', 'LOG', 'RESET');
});

afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

const refusals = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('redlock-cli:'));

describe.each(Object.keys(USERS) as User[])('as %s', (user) => {
  const env = () => tempStateEnv({ REDIS_URL: `redis://${user}:pw@127.0.0.1:${server.port}` });

  it.each(Object.entries(CASES))('%s works or refuses in one documented line', async (_, c) => {
    const r = await runCli(c.argv, env());
    if (c.refuses?.users.includes(user)) {
      expect(r.code).toBe(ExitCode.permission);
      const lines = refusals(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`ACL SETUSER ${user} ${c.refuses.rule}`);
      expect(lines[0]).toContain(c.refuses.instead);
      return;
    }
    expect({ code: r.code, refusals: refusals(r.stderr) }).toEqual({ code: 0, refusals: [] });
  }, 30_000);
});

describe('reading without scripts', () => {
  it('says the snapshot is not atomic, as a field of --json', async () => {
    const r = await runCli(['inspect', 'orders', '--json'], tempStateEnv({ REDIS_URL: `redis://oncall:pw@127.0.0.1:${server.port}` }));
    expect(r.code).toBe(0);
    const [view] = JSON.parse(r.stdout) as { kind: string; readConsistency?: string; holders: { count: number }[] }[];
    expect(view).toMatchObject({ kind: 'reentrant', readConsistency: 'separate-reads', holders: [{ count: 2 }] });
  });

  it('and says so once on stderr, the result on stdout as with the script', async () => {
    const env = (user: User) => tempStateEnv({ REDIS_URL: `redis://${user}:pw@127.0.0.1:${server.port}` });
    const [plain, scripted] = [await runCli(['inspect', 'orders', 'stock'], env('oncall')), await runCli(['inspect', 'orders', 'stock'], env('admin'))];
    expect(plain.stdout.replace(/expires in .*/g, '')).toBe(scripted.stdout.replace(/expires in .*/g, ''));
    expect(plain.stderr.match(/not one atomic snapshot/g)).toHaveLength(1);
    expect(scripted.stderr).toBe('');
  });
});

describe('trace with MONITOR and reads only (no +@connection: no CLIENT LIST, no CLIENT SETNAME)', () => {
  it('runs without client names and says so once', async () => {
    await raw.call('ACL', 'SETUSER', 'bare-monitor', 'on', '>pw', '~*', '&*', '-@all', '+@read', '+info', '+monitor');
    const r = await runCli(['trace', '--for', '1s'], tempStateEnv({ REDIS_URL: `redis://bare-monitor:pw@127.0.0.1:${server.port}` }));
    expect({ code: r.code, refusals: refusals(r.stderr) }).toEqual({ code: 0, refusals: [] });
    expect(r.stderr.match(/may not run CLIENT\|LIST: grant it with ACL SETUSER bare-monitor \+client\|list .*without them/g)).toHaveLength(1);
  });
});

// Last in the file: every case above has run.
describe('the ACL LOG after every read-only command', () => {
  it('holds no denied write', async () => {
    const entries = (await raw.call('ACL', 'LOG', '128')) as unknown[][];
    const objects = entries.map((entry) => String(entry[entry.indexOf('object') + 1]));
    expect(objects.length).toBeGreaterThan(0); // the refusals above are there: the log is read right
    const info = (await raw.call('COMMAND', 'INFO', ...new Set(objects))) as unknown[][];
    const writes = info.filter((cmd) => Array.isArray(cmd?.[2]) && (cmd[2] as string[]).includes('write')).map((cmd) => cmd[0]);
    expect(writes).toEqual([]);
  });
});

// Managed services rename or disable admin commands: the same one-line treatment as an ACL refusal.
describe('on a server with MONITOR, CONFIG and CLIENT disabled (rename-command)', () => {
  let managed: RedisServer;
  const disabled = ['MONITOR', 'CONFIG', 'CLIENT'].flatMap((c) => ['--rename-command', c, '']);
  const env = () => tempStateEnv({ REDIS_URL: managed.url });
  beforeAll(async () => {
    managed = await startRedis({ args: ['--notify-keyspace-events', 'KA', ...disabled] });
  });
  afterAll(async () => {
    await managed?.stop();
  });

  it('trace names the disabled MONITOR and the keyspace source', async () => {
    const r = await runCli(['trace', '--for', '1s'], env());
    expect(r.code).toBe(ExitCode.permission);
    expect(refusals(r.stderr)).toEqual([expect.stringMatching(/has no MONITOR command .*, or use --source keyspace/)]);
  });

  it('--enable-notifications without CONFIG says to set the flags through the provider', async () => {
    const r = await runCli(['trace', '--source', 'keyspace', '--enable-notifications', '--for', '1s'], env());
    expect(r.code).toBe(ExitCode.permission);
    expect(refusals(r.stderr)).toEqual([expect.stringMatching(/has no CONFIG command .*notify-keyspace-events .* provider's parameter settings/)]);
  });

  it('the keyspace source runs without CONFIG, saying once that it could not check the flags', async () => {
    const r = await runCli(['trace', '--source', 'keyspace', '--for', '1s'], env());
    expect({ code: r.code, refusals: refusals(r.stderr) }).toEqual({ code: 0, refusals: [] });
    expect(r.stderr.match(/has no CONFIG command/g)).toHaveLength(1);
  });

  it('inspect and doctor still read', async () => {
    for (const argv of [['inspect', 'orders'], ['doctor']]) expect((await runCli(argv, env())).code, argv.join(' ')).toBe(argv[0] === 'inspect' ? ExitCode.notFound : ExitCode.ok);
  });
});
