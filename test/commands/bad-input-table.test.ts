import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { fairLock } from '../../src/locks/fair.js';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { INTEGER_SHAPE, TOKEN_SHAPES } from '../core/token-shapes.js';
import { describeBadInput, PASSWORD, type Row, type Servers } from '../helpers/bad-input.js';

// THE bad-input table (issue 12): every row is something a user may type that must be refused.
// Each row checks the exit code, exactly one line on stderr (no stack), nothing with a password
// on either stream, and that no key changed on any server (DUMP of every key before and after):
// see test/helpers/bad-input.ts. To add rows: append to ROWS (or to ROWS_MORE below).

const OWNER = '11111111-1111-4111-8111-111111111111:1';
const OTHER = '22222222-2222-4222-8222-222222222222:2';
const appHash = async (r: Redis, key = 'user:1') => r.hset(key, 'name', 'bob', 'email', 'bob@example.com');
const rLock = async (r: Redis, key = 'orders') => r.hset(key, OTHER, '1').then(() => r.pexpire(key, 60_000));
const rwLock = async (r: Redis, key = 'rw') => r.hset(key, 'mode', 'read', OTHER, '1').then(() => r.pexpire(key, 60_000));
const nodes = (s: Servers, first: string, second: string) => `${first},${second},127.0.0.1:${s.port2}`;
const big = '99999999999999999999ms';
const KINDS = ['reentrant', 'fair', 'read', 'write', 'spin', 'fenced', 'token'] as const;

export const ROWS: Row[] = [
  // The validation bullet of issue 12.
  { name: 'hold --watchdog 1ms', args: () => ['hold', 'k', '--watchdog', '1ms'], code: 2, says: /--watchdog duration "1ms": must be at least 300ms/ },
  { name: 'acquire of an empty key', args: () => ['acquire', ''], code: 2, says: /the key is empty/ },
  { name: 'hold of an empty key', args: () => ['hold', '', '--for', '1s'], code: 2, says: /the key is empty/ },
  { name: 'release of an empty key', args: () => ['release', ''], code: 2, says: /the key is empty/ },
  { name: 'renew of an empty key', args: () => ['renew', '', '--lease', '1s'], code: 2, says: /the key is empty/ },
  { name: 'force-unlock of an empty key', args: () => ['force-unlock', '', '--yes'], code: 2, says: /the key is empty/ },
  { name: 'inspect of an empty key', args: () => ['inspect', 'orders', ''], code: 2, says: /the key is empty/ },
  { name: 'race on an empty key', args: (s) => ['race', '', '--url', s.url], code: 2, says: /the key is empty/ },
  { name: 'owner thread id past a Java long', args: () => ['acquire', 'k', '--owner', `${OWNER.split(':')[0]}:9223372036854775808`], code: 2, says: /thread id must be a Java long/ },
  { name: 'owner thread id below a Java long', args: () => ['acquire', 'k', '--owner', `${OWNER.split(':')[0]}:-9223372036854775809`], code: 2, says: /thread id must be a Java long/ },
  { name: 'owner thread id with leading zeros', args: () => ['acquire', 'k', '--owner', `${OWNER.split(':')[0]}:007`], code: 2, says: /without leading zeros/ },
  { name: 'race --procs 0', args: (s) => ['race', 'k', '--url', s.url, '--procs', '0'], code: 2, says: /invalid --procs "0": use a whole number from 1 to \d+/ },
  { name: 'scenario settle of 1e20 h', args: (s) => ['scenario', 'run', join(s.dir, 'huge-settle.yaml')], code: 2, says: /settle: invalid duration "100000000000000000000h": must be at most 576h/ },
  { name: 'scenario step of 1e20 h', args: (s) => ['scenario', 'run', join(s.dir, 'huge-step.yaml')], code: 2, says: /for: invalid duration "1e20h"/ },
  { name: '--nodes with --kind reentrant', args: (s) => ['acquire', 'k', '--nodes', nodes(s, `127.0.0.1:${s.port}`, `127.0.0.1:${s.port2}`)], code: 2, says: /--nodes is for --kind redlock/ },
  { name: '--nodes with --kind token on release', args: (s) => ['release', 'k', '--kind', 'token', '--owner', 'abc', '--nodes', nodes(s, `127.0.0.1:${s.port}`, `127.0.0.1:${s.port2}`)], code: 2, says: /--nodes is for --kind redlock/ },
  { name: 'race --nodes with --kind reentrant', args: (s) => ['race', 'k', '--url', s.url, '--nodes', `127.0.0.1:${s.port},127.0.0.1:${s.port2}`], code: 2, says: /--nodes is for --kind redlock/ },
  { name: '--url next to --cluster (acquire)', args: (s) => ['acquire', 'k', '--url', s.url, '--cluster', `127.0.0.1:${s.port}`], code: 2, says: /use either --url \(one server\) or --cluster/ },
  { name: '--url next to --cluster (inspect)', args: (s) => ['inspect', 'k', '--url', s.url, '--cluster', `127.0.0.1:${s.port}`], code: 2, says: /use either --url \(one server\) or --cluster/ },
  { name: 'a key with a newline that nobody holds', args: () => ['release', 'a\nb'], code: 4, says: /"a\\nb" is not locked/ },
  { name: '--kind redlock on a list', args: (s) => ['acquire', 'jobs', '--kind', 'redlock', '--nodes', nodes(s, s.url, `127.0.0.1:${s.securedPort}`).replace(`127.0.0.1:${s.securedPort}`, `redis://:${PASSWORD}@127.0.0.1:${s.securedPort}`)], code: 2, says: /"jobs" holds a list that is not a lock/, arrange: (p, sec) => Promise.all([p.rpush('jobs', 'a'), sec.rpush('jobs', 'a')]) },

  // Item 1: only what inspect calls a lock of the family is ever deleted.
  { name: 'force-unlock --yes of an application hash', args: () => ['force-unlock', 'user:1', '--yes'], code: 2, says: /holds a hash that is not a lock/, arrange: (p) => appHash(p) },
  { name: 'force-unlock --yes of a JSON string', args: () => ['force-unlock', 'cfg', '--yes'], code: 2, says: /holds a string that is not a lock/, arrange: (p) => p.set('cfg', '{"a":1}') },
  { name: 'force-unlock --yes of a plain string', args: () => ['force-unlock', 'greeting', '--yes'], code: 2, says: /holds a string that is not a lock/, arrange: (p) => p.set('greeting', 'hello') },
  { name: 'force-unlock --yes --kind token of a plain string', args: () => ['force-unlock', 'greeting', '--yes', '--kind', 'token'], code: 2, says: /not a lock/, arrange: (p) => p.set('greeting', 'hello') },
  { name: 'force-unlock --yes of a set', args: () => ['force-unlock', 'tags', '--yes'], code: 2, says: /holds a set that is not a lock/, arrange: (p) => p.sadd('tags', 'a') },
  { name: 'force-unlock --yes of a semaphore', args: () => ['force-unlock', 'permits', '--yes'], code: 2, says: /is a semaphore/, arrange: (p) => p.set('permits', '5') },
  { name: 'force-unlock --yes --kind reentrant of a read-write lock', args: () => ['force-unlock', 'rw', '--yes', '--kind', 'reentrant'], code: 2, says: /is a read-write lock, not a reentrant lock/, arrange: (p) => rwLock(p) },
  { name: 'force-unlock --yes --kind token of a Redisson lock', args: () => ['force-unlock', 'orders', '--yes', '--kind', 'token'], code: 2, says: /is a Redisson lock \(reentrant\), not a token lock: use --kind reentrant/, arrange: (p) => rLock(p) },
  { name: 'force-unlock --yes of an app hash on the secured server', args: (s) => ['force-unlock', 'user:1', '--yes', '--url', s.securedUrl], code: 2, says: /not a lock/, arrange: (_p, sec) => appHash(sec) },
  { name: 'release --kind token --owner <value> of a no-TTL string', args: () => ['release', 'greeting', '--kind', 'token', '--owner', 'hello'], code: 2, says: /holds a string that is not a lock/, arrange: (p) => p.set('greeting', 'hello') },
  { name: 'renew --kind token --owner <value> of a no-TTL string', args: () => ['renew', 'greeting', '--kind', 'token', '--owner', 'hello', '--lease', '1m'], code: 2, says: /not a lock/, arrange: (p) => p.set('greeting', 'hello') },
  { name: 'force-unlock --kind redlock of a string on one node', args: (s) => ['force-unlock', 'pay', '--yes', '--kind', 'redlock', '--nodes', nodes(s, s.url, `redis://:${PASSWORD}@127.0.0.1:${s.securedPort}`)], code: 2, says: /not a lock/, arrange: (_p, sec) => sec.set('pay', 'application value') },

  // Item 2: durations bounded before anything is sent.
  ...KINDS.map((kind): Row => ({ name: `acquire --kind ${kind} --lease ${big}`, args: () => ['acquire', 'k', '--kind', kind, '--lease', big], code: 2, says: /must be at most 576h \(24 days\)/ })),
  { name: 'acquire --lease 1e12 ms', args: () => ['acquire', 'k', '--lease', '1000000000000ms'], code: 2, says: /at most 576h/ },
  { name: 'acquire --lease 1e15ms (no exponents)', args: () => ['acquire', 'k', '--lease', '1e15ms'], code: 2, says: /use a number with ms, s, m, h or d/ },
  { name: 'acquire --wait 1000000h', args: () => ['acquire', 'k', '--wait', '1000000h'], code: 2, says: /--wait duration "1000000h": must be at most 576h/ },
  { name: 'hold --for 1000000h', args: () => ['hold', 'k', '--for', '1000000h'], code: 2, says: /--for duration "1000000h": must be at most 576h/ },
  { name: 'renew --lease 0s', args: () => ['renew', 'k', '--lease', '0s'], code: 2, says: /must be greater than zero/ },
  { name: 'race --duration 1e6 h', args: (s) => ['race', 'k', '--url', s.url, '--duration', '1000000h'], code: 2, says: /at most 576h/ },
  { name: 'acquire --lease too large on the secured server', args: (s) => ['acquire', 'k', '--lease', big, '--url', s.securedUrl], code: 2, says: /at most 576h/ },

  // Item 3: a --kind that contradicts the key.
  { name: 'release --kind reentrant of a fair lock with waiters', args: () => ['release', 'f', '--kind', 'reentrant', '--owner', OWNER], code: 2, says: /is a fair lock, not a reentrant lock: use --kind fair/, arrange: (_p, _s, s) => fairWithWaiter(s) },
  { name: 'renew --kind reentrant of a fair lock with waiters', args: () => ['renew', 'f', '--kind', 'reentrant', '--owner', OWNER, '--lease', '1m'], code: 2, says: /is a fair lock/, arrange: (_p, _s, s) => fairWithWaiter(s) },
  { name: 'acquire --kind reentrant of a fair lock with waiters', args: () => ['acquire', 'f', '--owner', OTHER], code: 2, says: /is a fair lock/, arrange: (_p, _s, s) => fairWithWaiter(s) },
  { name: 'renew --kind reentrant of a read lock', args: () => ['renew', 'rw', '--kind', 'reentrant', '--owner', OTHER, '--lease', '1m'], code: 2, says: /is a read-write lock/, arrange: (p) => rwLock(p) },
  { name: 'release --kind fenced of a read lock', args: () => ['release', 'rw', '--kind', 'fenced', '--owner', OTHER], code: 2, says: /is a read-write lock/, arrange: (p) => rwLock(p) },
  { name: 'release --kind read of a plain lock', args: () => ['release', 'orders', '--kind', 'read', '--owner', OTHER], code: 2, says: /is a Redisson lock \(reentrant\), not a read lock/, arrange: (p) => rLock(p) },
  { name: 'release --kind token of a Redisson lock', args: () => ['release', 'orders', '--kind', 'token', '--owner', 'abc'], code: 2, says: /not a token lock/, arrange: (p) => rLock(p) },

  // Item 4: a malformed hash is not joined.
  { name: 'acquire --kind read of {mode: read, holder: "1.5"}', args: () => ['acquire', 'rw', '--kind', 'read', '--owner', OWNER], code: 2, says: /holds a hash that is not a lock/, arrange: (p) => p.hset('rw', 'mode', 'read', OTHER, '1.5') },
  { name: 'acquire --kind write of {mode: banana}', args: () => ['acquire', 'rw', '--kind', 'write'], code: 2, says: /not a lock/, arrange: (p) => p.hset('rw', 'mode', 'banana') },
  { name: 'acquire of a hash with a holder count of 0', args: () => ['acquire', 'h'], code: 2, says: /not a lock/, arrange: (p) => p.hset('h', OTHER, '0') },

  // Item 5: a database the server does not have.
  { name: 'acquire on redis://host:port/99', args: (s) => ['acquire', 'x', '--url', `${s.url}/99`], code: 2, says: /database 99 does not exist/ },
  { name: 'acquire on the secured server /99', args: (s) => ['acquire', 'x', '--url', `${s.securedUrl}/99`], code: 2, says: /database 99 does not exist/ },
  { name: 'inspect on redis://host:port/99', args: (s) => ['inspect', 'x', '--url', `${s.url}/99`], code: 2, says: /database 99 does not exist/ },

  // Item 7: one server twice is not a majority.
  { name: 'redlock --nodes with the same URL twice', args: (s) => ['acquire', 'pay', '--kind', 'redlock', '--nodes', nodes(s, s.url, s.url)], code: 2, says: /names one server twice/ },
  { name: 'redlock --nodes with localhost next to 127.0.0.1', args: (s) => ['acquire', 'pay', '--kind', 'redlock', '--nodes', nodes(s, `localhost:${s.port}`, `127.0.0.1:${s.port}`)], code: 2, says: /names one server twice/ },
  { name: 'redlock --nodes with two databases of one server', args: (s) => ['acquire', 'pay', '--kind', 'redlock', '--nodes', nodes(s, `${s.url}/1`, `${s.url}/2`)], code: 2, says: /names one server twice/ },
  { name: 'race redlock --nodes with a duplicate', args: (s) => ['race', 'pay', '--kind', 'redlock', '--url', s.url, '--nodes', nodes(s, s.url, s.url), '--duration', '1s', '--yes'], code: 2, says: /names one server twice/ },

  // Item 8: race refuses application data up front.
  { name: 'race on a string of application data', args: (s) => ['race', 's1', '--kind', 'token', '--url', s.url, '--duration', '1s', '--yes'], code: 2, says: /"s1" already exists on 127\.0\.0\.1:\d+ \(a string\)/, arrange: (p) => p.set('s1', 'val') },
  { name: 'race on an application hash', args: (s) => ['race', 'user:1', '--url', s.url, '--duration', '1s', '--yes'], code: 2, says: /"user:1" already exists on 127\.0\.0\.1:\d+ \(a hash\)/, arrange: (p) => appHash(p) },
  { name: 'race --kind fair on a read-write lock', args: (s) => ['race', 'rw', '--kind', 'fair', '--url', s.url, '--duration', '1s', '--yes'], code: 2, says: /"rw" already exists/, arrange: (p) => rwLock(p) },
  { name: 'race on a server of your own without --yes', args: (s) => ['race', 'k', '--url', s.url, '--duration', '1s'], code: 2, says: /which is not a redlock-cli sandbox: pass --yes to race there/ },

  // What the docs promise (the locks guide, safety rails, exit codes).
  { name: 'acquire of a list', args: () => ['acquire', 'jobs'], code: 2, says: /holds a list that is not a lock/, arrange: (p) => p.rpush('jobs', 'a', 'b') },
  { name: 'acquire --kind token of a Redisson hash', args: () => ['acquire', 'orders', '--kind', 'token'], code: 2, says: /not a token lock/, arrange: (p) => rLock(p) },
  { name: 'acquire --kind reentrant of a read-write hash', args: () => ['acquire', 'rw'], code: 2, says: /is a read-write lock/, arrange: (p) => rwLock(p) },
  { name: 'acquire --kind read of a plain lock', args: () => ['acquire', 'orders', '--kind', 'read'], code: 2, says: /not a read lock/, arrange: (p) => rLock(p) },
  { name: 'hold of an application hash', args: () => ['hold', 'user:1', '--for', '1s'], code: 2, says: /holds a hash that is not a lock/, arrange: (p) => appHash(p) },
  { name: 'force-unlock without --yes and no terminal', args: () => ['force-unlock', 'orders'], code: 2, says: /pass --yes to confirm/, arrange: (p) => rLock(p) },
  { name: 'force-unlock of a missing key', args: () => ['force-unlock', 'nothing', '--yes'], code: 4, says: /nothing to unlock: "nothing" does not exist/ },
  { name: 'release of a missing key', args: () => ['release', 'nothing'], code: 4, says: /"nothing" is not locked: nobody holds it/ },
  { name: 'release with no owner remembered', args: () => ['release', 'orders'], code: 2, says: /no owner of "orders" remembered/, arrange: (p) => rLock(p) },
  { name: 'renew with no lease known', args: () => ['renew', 'orders', '--owner', OTHER], code: 2, says: /renew needs --lease/, arrange: (p) => rLock(p) },
  { name: 'unknown lock kind', args: () => ['acquire', 'k', '--kind', 'mutex'], code: 2, says: /argument 'mutex' is invalid|unknown lock kind/ },
  { name: 'duration without a unit', args: () => ['acquire', 'k', '--lease', '5'], code: 2, says: /invalid --lease duration "5"/ },
  { name: 'duration as a word', args: () => ['acquire', 'k', '--wait', 'soon'], code: 2, says: /invalid --wait duration "soon"/ },
  { name: 'owner that is not <uuid>:<thread>', args: () => ['acquire', 'k', '--owner', 'bob'], code: 2, says: /invalid owner "bob"/ },
  { name: 'owner with a space for a token lock', args: () => ['acquire', 'k', '--kind', 'token', '--owner', 'a b'], code: 2, says: /invalid token "a b"/ },
  { name: 'acquire without a key', args: () => ['acquire'], code: 2, says: /missing required argument 'key'/ },
  { name: 'a misspelt command', args: () => ['aquire', 'k'], code: 2, says: /unknown command 'aquire'/ },
  { name: '--kind redlock without --nodes', args: () => ['acquire', 'k', '--kind', 'redlock'], code: 2, says: /--kind redlock needs --nodes/ },
  { name: '--kind redlock with one node', args: (s) => ['acquire', 'k', '--kind', 'redlock', '--nodes', s.url], code: 2, says: /--nodes needs at least 2 Redis URLs/ },
  { name: '--sentinel with --cluster', args: () => ['acquire', 'k', '--sentinel', '127.0.0.1:1', '--cluster', '127.0.0.1:2'], code: 2, says: /use either --sentinel or --cluster/ },
  { name: '--master-name without --sentinel', args: () => ['acquire', 'k', '--master-name', 'm'], code: 2, says: /--master-name goes with --sentinel/ },
  { name: 'a URL that is not redis://', args: () => ['acquire', 'k', '--url', 'ftp://127.0.0.1'], code: 2, says: /invalid Redis URL scheme "ftp:"/ },
  { name: 'a database that is not a number', args: (s) => ['acquire', 'k', '--url', `${s.url}/abc`], code: 2, says: /invalid database "abc"/ },
  { name: 'hold with both --lease and --watchdog', args: () => ['hold', 'k', '--lease', '1s', '--watchdog', '1s'], code: 2, says: /use either --lease/ },
  { name: 'race --clients 0', args: (s) => ['race', 'k', '--url', s.url, '--clients', '0'], code: 2, says: /invalid --clients "0": use a whole number from 1 to 10000/ },
  { name: 'race --kind read', args: (s) => ['race', 'k', '--url', s.url, '--kind', 'read'], code: 2, says: /read locks are shared by design/ },
  { name: 'a wrong password', args: (s) => ['acquire', 'k', '--url', `redis://:wrong-${PASSWORD}@127.0.0.1:${s.securedPort}`], code: 3, says: /authentication failed at 127\.0\.0\.1:\d+/ },
  { name: 'no password for a server that needs one', args: (s) => ['inspect', 'k', '--url', `redis://127.0.0.1:${s.securedPort}`], code: 3, says: /127\.0\.0\.1:\d+/ },
  { name: 'an unreachable server with a password in its URL', args: () => ['acquire', 'k', '--url', `redis://:${PASSWORD}@127.0.0.1:1`], code: 3, says: /cannot connect to Redis at 127\.0\.0\.1:1: connection refused/ },
  { name: 'redlock with a majority unreachable', args: (s) => ['acquire', 'k', '--kind', 'redlock', '--nodes', `redis://:${PASSWORD}@127.0.0.1:1,127.0.0.1:2,${s.url}`], code: 3, says: /only 1 of 3 Redlock nodes answered/ },
];

/** Rows other areas add (issue 12 items 9-13): same checks, same servers. */
export const ROWS_MORE: Row[] = [
  // Item 9: the reply timeout is a duration like the others (its hangs: test/e2e/hangs.test.ts).
  { name: '--timeout 0s', args: () => ['acquire', 'k', '--timeout', '0s'], code: 2, says: /invalid --timeout duration "0s": must be greater than zero/ },
  { name: '--timeout without a unit', args: () => ['inspect', 'k', '--timeout', '5'], code: 2, says: /invalid --timeout duration "5": use a number with ms, s, m/ },
  { name: '--timeout past the bound', args: () => ['ls', '--timeout', '99999h'], code: 2, says: /invalid --timeout duration "99999h": must be at most 576h/ },
  // Redis's own refusals mapped to what to do (test/commands/redis-errors.test.ts has the rest).
  {
    name: 'an ACL user without scripting (NOPERM)',
    args: (s) => ['acquire', 'k', '--url', `redis://noscripts:${PASSWORD}@127.0.0.1:${s.port}`],
    code: 10,
    says: /the Redis user noscripts at 127\.0\.0\.1:\d+ may not run EVAL(SHA)?: grant it with ACL SETUSER noscripts \+eval/,
    arrange: (p) => p.call('ACL', 'SETUSER', 'noscripts', 'on', `>${PASSWORD}`, '~*', '&*', '+@all', '-@scripting'),
  },
  {
    name: 'acquire of a hash whose hold count is not a number',
    args: () => ['acquire', 'orders', '--owner', OWNER],
    code: 2,
    says: /"orders"/,
    arrange: (p) => p.hset('orders', OWNER, 'lots').then(() => p.pexpire('orders', 60_000)),
  },
  { name: 'sandbox up --redis-server /bin/false', args: () => ['sandbox', 'up', '--redis-server', '/bin/false', '--name', 'bad-input-false'], code: 3, says: /exited with code 1 before answering .*check that --redis-server is a working redis-server/ },
  { name: 'who --sample abc', args: (s) => ['who', 'orders', '--url', s.url, '--sample', 'abc'], code: 2, says: /invalid --sample duration "abc"/ },
  { name: 'who --sample past its bound', args: (s) => ['who', 'orders', '--url', s.url, '--sample', '20m'], code: 2, says: /--sample 20m is too long: who is bounded to 10m/ },
  { name: 'who of an empty key', args: (s) => ['who', '', '--url', s.url], code: 2, says: /the key is empty/ },
  { name: 'who of an application hash', args: (s) => ['who', 'user:1', '--url', s.url, '--sample', '1s'], code: 4, says: /who: user:1 is not a lock here/, arrange: (p) => appHash(p) },
];

/**
 * Issue 24: application strings in every token shape, with and without TTL, under every lock
 * command. Without TTL each is refused (exit 2) whatever --kind or --owner says; with one, the
 * shaped ones are token locks held by their value, so another owner is refused (exit 5). (`hold`
 * refused a TTL'd one prints its event log on stdout: test/commands/token-shaped-strings.test.ts.)
 */
function tokenShapeRows(): Row[] {
  const other = 'not-the-holder';
  const rows: Row[] = [];
  for (const s of [...TOKEN_SHAPES, INTEGER_SHAPE]) {
    const value = s.value(Date.now());
    const lockShaped = s === INTEGER_SHAPE || ('library' in s && s.library !== undefined);
    const name = (ttl: string, what: string) => `${s.shape}, ${ttl}: ${what}`;
    const bare = (p: Redis) => p.set(s.key, value);
    const refused =
      s === INTEGER_SHAPE ? /is a semaphore/ : lockShaped ? /holds a string without TTL, read as application data.*nothing was changed; if it is a lock set without expiry, delete it with redlock-cli force-unlock \S+ --kind token --yes$/ : /holds a string that is not a lock/;
    const without = (what: string, args: readonly string[]): Row => ({ name: name('no TTL', what), args: () => args, code: 2, says: refused, arrange: bare });
    rows.push(
      without('acquire --kind token', ['acquire', s.key, '--kind', 'token']),
      without('hold --kind token --for 1s', ['hold', s.key, '--kind', 'token', '--for', '1s']),
      without('renew --kind token --owner <value>', ['renew', s.key, '--kind', 'token', '--owner', value, '--lease', '1m']),
      without('release --kind token --owner <value>', ['release', s.key, '--kind', 'token', '--owner', value]),
      without('release --owner <value>', ['release', s.key, '--owner', value]),
      without('force-unlock --yes', ['force-unlock', s.key, '--yes']),
    );
    const timed = (p: Redis) => p.set(s.key, value, 'PX', 60_000);
    const held = (what: string, args: readonly string[], code: number, says: RegExp): Row => ({ name: name('TTL', what), args: () => args, code, says, arrange: timed });
    rows.push(
      held('acquire --kind token', ['acquire', s.key, '--kind', 'token'], 5, /not acquired/),
      held('renew by another owner', ['renew', s.key, '--kind', 'token', '--owner', other, '--lease', '1m'], 5, /not renewed|does not hold/),
      held('release by another owner', ['release', s.key, '--kind', 'token', '--owner', other], 5, /does not hold it/),
      lockShaped
        ? held('force-unlock without --yes', ['force-unlock', s.key], 2, /pass --yes to confirm/)
        : held('force-unlock --yes', ['force-unlock', s.key, '--yes'], 2, /holds a string that is not a lock/),
    );
  }
  return rows;
}

const ROWS_TOKEN_SHAPES = tokenShapeRows();

let lockEnv: OpenLockEnv | undefined;

/** A fair lock held by OTHER with OWNER queued behind it. */
async function fairWithWaiter(s: Servers): Promise<void> {
  lockEnv ??= await openLockEnv(parseEndpointUrl(s.url), { mode: 'long-lived', pubsub: 'plain' });
  await fairLock().tryAcquire(lockEnv, { key: 'f', owner: OTHER, leaseMs: 60_000 });
  await fairLock().queuedAttempt(lockEnv, { key: 'f', owner: OWNER, leaseMs: 60_000 }, 120_000);
}

afterAll(async () => {
  await lockEnv?.close();
});

const scenario = (settle: string, pause: string) => `title: huge
summary: durations past the bound
narration: none
sandbox: { topology: single }
lock: { kind: token, key: orders }
clients: [A]
settle: ${settle}
steps:
  - { at: 0ms, client: A, do: acquire, lease: 300ms }
  - { at: 20ms, client: A, do: pause, for: ${pause} }
expect: { unsafe: safe }
`;

it('has at least 60 rows, each with its own name', () => {
  const all = [...ROWS, ...ROWS_MORE, ...ROWS_TOKEN_SHAPES];
  expect(all.length).toBeGreaterThanOrEqual(60);
  expect(new Set(all.map((r) => r.name)).size).toBe(all.length);
});

describeBadInput([...ROWS, ...ROWS_MORE, ...ROWS_TOKEN_SHAPES], {
  files: (dir) => {
    writeFileSync(join(dir, 'huge-settle.yaml'), scenario('100000000000000000000h', '10ms'));
    writeFileSync(join(dir, 'huge-step.yaml'), scenario('300ms', '1e20h'));
  },
});
