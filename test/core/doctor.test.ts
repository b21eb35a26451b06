import { describe, expect, it } from 'vitest';
import { redisCli, redlockCli, shellQuote, type FixTarget } from '../../src/core/doctor-fix.js';
import { fixFor } from '../../src/core/doctor-fixes.js';
import { namedClients, parseReplicationInfo, renewalFindings, replicaFindings, wasRenewed, type RenewalSample } from '../../src/core/doctor-server.js';
import { companionFindings, viewFindings } from '../../src/core/doctor.js';
import type { LockView, QueueEntryView } from '../../src/core/lock-view.js';

const T: FixTarget = { redisCli: ['-h', '10.0.0.5', '-p', '6380'], redlockCli: ['--url', 'redis://10.0.0.5:6380'] };
const A = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f';
const view = (over: Partial<LockView>): LockView => ({ key: 'k', kind: 'reentrant', type: 'hash', ttlMs: 10_000, holders: [], waiters: 0, warnings: [], readAt: 0, ...over });
const waiter = (position: number, deadlineInMs: number | null): QueueEntryView => ({ owner: `${A}:${position + 1}`, position, deadlineInMs });

describe('printed commands', () => {
  it.each([
    ['orders', 'orders'],
    ['redisson_lock_queue:{orders}', `'redisson_lock_queue:{orders}'`],
    ["it's", `'it'\\''s'`],
    ['a b', `'a b'`],
    ['tab\there', `$'tab\\x09here'`],
  ])('shellQuote(%j) = %s', (word, quoted) => expect(shellQuote(word)).toBe(quoted));

  it('redis-cli takes names it cannot get as arguments on stdin, in its own \\xNN syntax', () => {
    expect(redisCli(T, 'DEL', 'a b')).toBe(`redis-cli -h 10.0.0.5 -p 6380 DEL 'a b'`);
    expect(redisCli(T, 'DEL', Uint8Array.from([0x00, 0x61, 0x22]))).toBe(`printf '%s\\n' 'DEL "\\x00a\\x22"' | redis-cli -h 10.0.0.5 -p 6380`);
    expect(redlockCli(T, 'release', 'k', '--all-holds')).toBe('redlock-cli release k --all-holds --url redis://10.0.0.5:6380');
  });
});

describe('decoder warnings become findings with a fix', () => {
  it('ttl-disagreement: the hash gets the longest read hold as its TTL', () => {
    const v = view({
      kind: 'rw',
      mode: 'read',
      readers: [{ owner: `${A}:1`, count: 1, zombie: false, timeoutKeys: [{ key: 'x:1', ttlMs: 25_000 }] }],
      warnings: [{ code: 'ttl-disagreement', severity: 'warning', message: 'the hash expires in 10.0 s but a read hold lasts 25.0 s' }],
    });
    expect(viewFindings(v, 'n', T, { fairWaitMs: 300_000 }).map((f) => f.fix)).toEqual(['redis-cli -h 10.0.0.5 -p 6380 PEXPIRE k 25000']);
  });

  it('expired permits: one script adds them back, trying the raw 16 bytes and the old hex text', () => {
    const id = '00112233445566778899aabbccddeeff';
    const fix = fixFor('expired-permit', view({ kind: 'expirable-semaphore', type: 'string', permits: [{ id, expiresInMs: -5, expired: true }] }), T)!;
    expect(fix).toMatch(/^printf '%s\\n' 'EVAL "local n = 0 .*" 2 k "\{k\}:timeout" "\\x00\\x11\\x223DUfw\\x88.*\\xee\\xff" 00112233445566778899aabbccddeeff' \| redis-cli -h 10\.0\.0\.5 -p 6380$/);
  });

  it('codes doctor has no repair for point at inspect; info notes are not findings', () => {
    const v = view({
      warnings: [
        { code: 'something-new', severity: 'warning', message: 'a' },
        { code: 'ambiguous-kind', severity: 'info', message: 'b' },
      ],
    });
    expect(viewFindings(v, 'n', T, { fairWaitMs: 1 }).map((f) => [f.code, f.fix])).toEqual([['something-new', 'redlock-cli inspect k --url redis://10.0.0.5:6380']]);
  });
});

describe('queue drift (scenario S10)', () => {
  const fair = (ttlMs: number, ...deadlines: (number | null)[]) => view({ kind: 'fair', ttlMs, queue: deadlines.map((d, i) => waiter(i, d)) });
  const drift = (v: LockView) => viewFindings(v, 'n', T, { fairWaitMs: 60_000 }).filter((f) => f.code === 'queue-drift');
  it('deadlines within lease + waiters x allowance are fine; beyond is drift', () => {
    expect(drift(fair(10_000, 70_000, 130_000))).toEqual([]);
    expect(drift(fair(10_000, 70_000, 130_001))).toHaveLength(1);
    expect(drift(fair(-2, null, 120_001))).toHaveLength(1); // a free lock: no lease left to add
    expect(drift(fair(10_000, null))).toEqual([]);
  });
});

describe('silent queue head (scenario S10)', () => {
  const head = (subscribers: number | undefined, deadlineInMs: number | null) =>
    view({ kind: 'fair', queue: [{ ...waiter(0, deadlineInMs), ...(subscribers !== undefined ? { subscribers } : {}) }, waiter(1, 90_000)] });
  const silent = (v: LockView) => viewFindings(v, 'n', T, { fairWaitMs: 300_000 }).filter((f) => f.code === 'silent-queue-head').length;
  it('only a head nobody listens for, with its deadline still ahead; unknown counts are no evidence', () => {
    expect([silent(head(0, 30_000)), silent(head(1, 30_000)), silent(head(undefined, 30_000)), silent(head(0, -5)), silent(head(0, null))]).toEqual([1, 0, 0, 0, 0]);
  });
});

describe('companions', () => {
  const lock = (kind: LockView['kind']) => view({ key: 'L', kind });
  it('a fencing counter without its lock is by design; a read-hold key without it is left over', () => {
    const facts = [
      { key: 'redisson_lock_token:{L}', node: 'n', companion: { role: 'fencing-counter' as const, lock: 'L' }, lock: lock('missing') },
      { key: `{L}:${A}:1:rwlock_timeout:1`, node: 'n', companion: { role: 'read-hold-timeout' as const, lock: 'L' }, lock: lock('missing') },
      { key: `{L}:${A}:2:rwlock_timeout:1`, node: 'n', companion: { role: 'read-hold-timeout' as const, lock: 'L' }, lock: lock('not-a-lock') },
    ];
    expect(companionFindings(facts, () => T).map((f) => [f.code, f.key, f.message.split(':')[0]])).toEqual([
      ['orphan-companion', `{L}:${A}:1:rwlock_timeout:1`, 'one read hold of read-write lock "L", but that lock is gone'],
      ['orphan-companion', `{L}:${A}:2:rwlock_timeout:1`, 'one read hold of read-write lock "L", but that lock holds a hash, not a lock'],
    ]);
  });
});

describe('replicas (scenario S6)', () => {
  const info = (offset: number, slave: string) => `# Replication\r\nrole:master\r\nconnected_slaves:1\r\nslave0:${slave}\r\nmaster_repl_offset:${offset}\r\n`;
  const check = (text: string) => replicaFindings(parseReplicationInfo('p:1', text), T).map((f) => [f.severity, f.code]);
  it('online and acknowledging: nothing; two missed acks or a megabyte behind: warning; not online: error', () => {
    expect(check(info(5000, 'ip=r,port=2,state=online,offset=4900,lag=1'))).toEqual([]);
    expect(check(info(5000, 'ip=r,port=2,state=online,offset=4900,lag=2'))).toEqual([['warning', 'replica-lag']]);
    expect(check(info(2_000_000, 'ip=r,port=2,state=online,offset=900000,lag=0'))).toEqual([['warning', 'replica-lag']]);
    expect(check(info(5000, 'ip=r,port=2,state=wait_bgsave,offset=0,lag=0'))).toEqual([['error', 'replica-offline']]);
    expect(check('# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_repl_offset:0\r\n')).toEqual([]);
  });
});

describe('renewals (scenario S5b)', () => {
  const sample = (before: number, after: number, client = A): RenewalSample => ({ key: 'k', node: 'n', kind: 'reentrant', client, ttlBeforeMs: before, ttlAfterMs: after, elapsedMs: 1000 });
  it('a renewal is a TTL that went up against the time that passed', () => {
    expect(wasRenewed(sample(20_000, 19_000))).toBe(false);
    expect(wasRenewed(sample(20_000, 19_050))).toBe(false);
    expect(wasRenewed(sample(20_000, 29_000))).toBe(true);
  });
  it('connection names carrying a UUID anywhere count; lines without name= do not', () => {
    const list = `id=3 addr=1 name=redisson-${A.toUpperCase()} db=0\nid=4 addr=2 name= db=0\nid=5 addr=3 name=other db=0`;
    expect([...namedClients(list)]).toEqual([A]);
  });
  it('findings only when names are visible; otherwise a note', () => {
    expect(renewalFindings([sample(20_000, 29_000)], new Set(), () => T)).toEqual({ findings: [], note: expect.stringMatching(/^1 lock\(s\) renewed/) });
    expect(renewalFindings([sample(20_000, 29_000)], new Set([A]), () => T).findings).toEqual([]);
    expect(renewalFindings([sample(20_000, 29_000)], new Set(['00000000-0000-0000-0000-000000000000']), () => T).findings.map((f) => f.fix)).toEqual([
      'redlock-cli force-unlock k --kind reentrant --yes --url redis://10.0.0.5:6380',
    ]);
  });
});
