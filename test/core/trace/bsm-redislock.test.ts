import { describe, expect, it } from 'vitest';
import { knownDigest } from '../../../src/core/trace/digest-catalogue.js';
import { A, at, B, catalogued, lua, outcomes, rows } from './monitor-stream.js';

// bsm/redislock v0.10.0 as MONITOR shows it (obtain.lua, refresh.lua, release.lua, pttl.lua, sent
// by go-redis as EVALSHA once loaded): ObtainMulti over two keys, a second client refused, a
// refresh, a TTL read, and the release of both keys.

const OBTAIN = 'eb0c00d98f6f33b4262419a509002884540f30be';
const REFRESH = '5a22d7e8431313862816d4416b5e46dd70fc340d';
const RELEASE = '9470c810040e272ee6c579d8d4331aaf6332a7b1';
const PTTL = '66e1084c2d842a7e8c271925aae90219fac4e129';
const V_A = 'q83vEjRWeJq83vEjRW-_qwbatch-7';
const V_B = 'QkJCQkJCQkJCQkJCQkJCQgother';

describe('trace decodes bsm/redislock', () => {
  it('its scripts of v0.3.0 to v0.10.0 are in the catalogue with their intent', () => {
    expect(catalogued([OBTAIN, REFRESH, RELEASE, PTTL])).toMatchObject(
      ['acquire', 'renew', 'release', 'unknown'].map((intent) => ({ library: 'bsm-redislock', intent })),
    );
    expect(knownDigest('80a1b5f2cfccec3b7119ba7721d2127682b691a7')).toMatchObject({
      library: 'bsm-redislock',
      intent: 'acquire',
      first: 'v0.9.4',
      last: 'v0.9.4',
    });
  });

  it('ObtainMulti over two keys: acquired on both, refused, refreshed, released on both', () => {
    const events = outcomes([
      at(1, A, 'EVALSHA', OBTAIN, '2', 'a', 'b', V_A, '22', '10000'),
      lua(1, 'msetnx', 'a', V_A, 'b', V_A),
      lua(1, 'pexpire', 'a', '10000'),
      lua(1, 'pexpire', 'b', '10000'),
      at(2, B, 'EVALSHA', OBTAIN, '1', 'b', V_B, '22', '10000'),
      lua(2, 'msetnx', 'b', V_B),
      lua(2, 'getrange', 'b', '0', '21'),
      at(3, A, 'EVALSHA', REFRESH, '2', 'a', 'b', V_A, '20000'),
      lua(3, 'mget', 'a', 'b'),
      lua(3, 'pexpire', 'a', '20000'),
      lua(3, 'pexpire', 'b', '20000'),
      at(4, A, 'EVALSHA', PTTL, '2', 'a', 'b', V_A),
      lua(4, 'mget', 'a', 'b'),
      lua(4, 'pttl', 'a'),
      lua(4, 'pttl', 'b'),
      at(5, A, 'EVALSHA', RELEASE, '2', 'a', 'b', V_A),
      lua(5, 'mget', 'a', 'b'),
      lua(5, 'del', 'a', 'b'),
    ]);
    expect(rows(events)).toEqual([
      ['acquired', 'a', V_A, 1],
      ['acquired', 'b', V_A, 1],
      ['refused', 'b', V_B, 2],
      ['renewed', 'a', V_A, 3],
      ['renewed', 'b', V_A, 3],
      ['released', 'a', V_A, 5],
      ['released', 'b', V_A, 5],
    ]);
    expect(events[0]).toMatchObject({ leaseMs: 10_000 });
    expect(events[2]).toMatchObject({ holders: [V_A] });
    expect(events[3]).toMatchObject({ leaseMs: 20_000 });
  });
});
