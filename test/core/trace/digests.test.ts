import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { DIGEST_CATALOGUE } from '../../../src/core/trace/digest-catalogue.js';
import type { MonitorLine } from '../../../src/core/trace/monitor-line.js';
import { A, at, B, lua, outcomes, OWNER_A, OWNER_B, T0 } from './monitor-stream.js';

// Traces that attach after the clients loaded their scripts: EVALSHA lines only, no body in the
// stream. The catalogue says what each library's digest means to do; a digest it lacks is read
// from the commands the script ran and named once.

const CHANNEL = 'redisson_lock__channel:{job}';
const LATCH = 'redisson_unlock_latch:{job}:f45214d9feef370320f223372268861e';

/** The digests Redisson 3.52.0 sent in MONITOR: RLock acquire, the watchdog's renewal, unlock. */
const REDISSON = {
  acquire: '149c5a8bf18676fd99e9e6e24923bd64d9b62f94',
  renew: '6a3d31570dc6f4b0bd32bcdc8e75667747c6f635',
  unlock: '6866459238a13a701d42f4971f12d9f3a50e2442',
};

/** A holder whose lease ran out while it was paused: B takes the lock, A's renewal and unlock find B's. */
function frozenHolder(sha: typeof REDISSON): MonitorLine[] {
  return [
    at(0, A, 'EVALSHA', sha.acquire, '1', 'job', '1500', OWNER_A),
    lua(0, 'exists', 'job'),
    lua(0, 'hincrby', 'job', OWNER_A, '1'),
    lua(0, 'pexpire', 'job', '1500'),
    at(100, B, 'EVALSHA', sha.acquire, '1', 'job', '1500', OWNER_B),
    lua(100, 'exists', 'job'),
    lua(100, 'hexists', 'job', OWNER_B),
    lua(100, 'pttl', 'job'),
    at(2000, B, 'EVALSHA', sha.acquire, '1', 'job', '10000', OWNER_B),
    lua(2000, 'exists', 'job'),
    lua(2000, 'hincrby', 'job', OWNER_B, '1'),
    lua(2000, 'pexpire', 'job', '10000'),
    at(3000, A, 'EVALSHA', sha.renew, '1', 'job', '1500', OWNER_A),
    lua(3000, 'hexists', 'job', OWNER_A),
    at(3100, A, 'EVALSHA', sha.unlock, '3', 'job', CHANNEL, LATCH, '0', '1500', OWNER_A, 'PUBLISH', '13000'),
    lua(3100, 'get', LATCH),
    lua(3100, 'hexists', 'job', OWNER_A),
  ];
}

describe('EVALSHA of scripts loaded before the trace started', () => {
  it("Redisson's digests from the catalogue: the refused acquisition, renewal and unlock of a frozen holder", () => {
    const events = outcomes(frozenHolder(REDISSON));
    expect(events.map((e) => [e.kind, e.owner, e.t - T0])).toEqual([
      ['acquired', OWNER_A, 0],
      ['refused', OWNER_B, 100],
      ['expired', OWNER_A, 1500],
      ['acquired', OWNER_B, 2000],
      ['renew-refused', OWNER_A, 3000],
      ['release-refused', OWNER_A, 3100],
    ]);
    // A went on as holder until its renewal was refused, a second after B took the lock.
    expect(checkEvents(events).map((f) => [f.kind, f.owners])).toEqual([
      ['expired-while-held', [OWNER_A]],
      ['overlap', [OWNER_A, OWNER_B]],
    ]);
  });

  it('a digest in neither the stream nor the catalogue: decoded from its commands alike, named once', () => {
    const unknown = { acquire: 'a'.repeat(40), renew: 'b'.repeat(40), unlock: 'c'.repeat(40) };
    const lines = [
      // A NOSCRIPT reply runs nothing: the client's SCRIPT LOAD follows, nothing to report.
      at(0, A, 'EVALSHA', 'd'.repeat(40), '1', 'job', '1500', OWNER_A),
      ...frozenHolder(unknown),
      at(4000, A, 'EVALSHA', unknown.unlock, '3', 'job', CHANNEL, LATCH, '0', '1500', OWNER_A, 'PUBLISH', '13000'),
      lua(4000, 'get', LATCH),
      lua(4000, 'hexists', 'job', OWNER_A),
    ];
    const events = outcomes(lines);
    expect(events.map((e) => [e.kind, e.owner ?? e.detail, e.t - T0])).toEqual([
      ['acquired', OWNER_A, 0],
      ['raw', `unknown script ${'a'.repeat(40)} touching job`, 0],
      ['refused', OWNER_B, 100],
      ['expired', OWNER_A, 1500],
      ['acquired', OWNER_B, 2000],
      ['renew-refused', OWNER_A, 3000],
      ['raw', `unknown script ${'b'.repeat(40)} touching job`, 3000],
      ['release-refused', OWNER_A, 3100],
      ['raw', `unknown script ${'c'.repeat(40)} touching job`, 3100],
      ['release-refused', OWNER_A, 4000],
    ]);
  });

  // One release and one extension script per token library, as the catalogue has them.
  const TOKEN_SCRIPTS = [
    ['node-redlock', 'RELEASE_SCRIPT', 'EXTEND_SCRIPT'],
    ['redsync', 'deleteScript', 'touchScript'],
    ['redis-py', 'LUA_RELEASE_SCRIPT', 'LUA_EXTEND_SCRIPT'],
    ['redis-semaphore', 'delIfEqualLua', 'expireIfEqualLua'],
    ['redlock-cli', 'token-release', 'token-extend'],
  ] as const;
  const shaOf = (library: string, near: string): string => {
    const entry = DIGEST_CATALOGUE.digests.findLast((d) => d.library === library && d.near === near);
    if (!entry) throw new Error(`no ${library} ${near} in the catalogue`);
    return entry.sha1;
  };

  it.each(TOKEN_SCRIPTS)(
    '%s: a release and an extension refused by the lock another token holds',
    (library, release, extend) => {
      const events = outcomes([
        at(0, A, 'SET', 'job', 'tokA', 'NX', 'PX', '10000'),
        at(10, B, 'EVALSHA', shaOf(library, extend), '1', 'job', 'tokB', '10000'),
        lua(10, 'get', 'job'),
        at(20, B, 'EVALSHA', shaOf(library, release), '1', 'job', 'tokB'),
        lua(20, 'get', 'job'),
      ]);
      expect(events.map((e) => [e.kind, e.owner, e.holders])).toEqual([
        ['acquired', 'tokA', undefined],
        ['renew-refused', 'tokB', ['tokA']],
        ['release-refused', 'tokB', ['tokA']],
      ]);
    },
  );
});
