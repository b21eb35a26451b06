import { describe, expect, it } from 'vitest';
import { groupMultiKeyLocks } from '../../src/core/decode/bsm.js';
import { decodeSnapshot } from '../../src/core/decode/index.js';
import { stringRaw } from './decode-fixtures.js';

// bsm/redislock v0.10.0 (redislock.go): a 22-character URL-safe token (16 random bytes, no
// padding) followed by the caller's metadata, no key prefix; ObtainMulti writes one value to
// several keys.

const TOKEN = 'q83vEjRWeJq83vEjRW-_qw';

describe('bsm/redislock in the decoder', () => {
  it('its token alone: a token lock of bsm-redislock under any name', () => {
    const view = decodeSnapshot(stringRaw(TOKEN, { key: 'orders' }));
    expect(view).toMatchObject({
      kind: 'token',
      library: 'bsm-redislock',
      value: TOKEN,
      holders: [{ owner: TOKEN, count: 1 }],
      warnings: [],
    });
    expect(view.metadata).toBeUndefined();
  });

  it('token and metadata under a lock-like name: the metadata is shown apart', () => {
    const view = decodeSnapshot(stringRaw(`${TOKEN}worker-7`, { key: 'jobs:nightly:lock' }));
    expect(view).toMatchObject({
      kind: 'token',
      library: 'bsm-redislock',
      metadata: 'worker-7',
      holders: [{ owner: `${TOKEN}worker-7` }],
    });
  });

  it('what it is not: a long value under another name, a last character 16 random bytes cannot end in, no TTL', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.sig';
    expect(decodeSnapshot(stringRaw(jwt, { key: 'session:42' })).kind).toBe('not-a-lock');
    expect(decodeSnapshot(stringRaw('q83vEjRWeJq83vEjRW-_qx', { key: 'orders' })).kind).toBe('not-a-lock');
    const bare = decodeSnapshot(stringRaw(TOKEN, { key: 'orders', pttl: -1 }));
    expect([bare.kind, bare.warnings.map((w) => w.code)]).toEqual(['not-a-lock', ['token-without-expiry']]);
  });

  it('ObtainMulti: the keys holding one value are one lock, with the shortest TTL; others stay apart', () => {
    const value = `${TOKEN}batch`;
    const views = [
      decodeSnapshot(stringRaw(value, { key: 'lock:a', pttl: 9000 })),
      decodeSnapshot(stringRaw('5f4dcc3b5aa765d61d8327deb882cf99', { key: 'other', pttl: 5000 })),
      decodeSnapshot(stringRaw(value, { key: 'lock:b', pttl: 8000 })),
      decodeSnapshot(stringRaw(`${TOKEN.slice(0, 21)}Abatch`, { key: 'lock:c', pttl: 7000 })),
    ];
    const grouped = groupMultiKeyLocks(views);
    expect(grouped.map((v) => [v.key, v.keys, v.ttlMs])).toEqual([
      ['lock:a', ['lock:a', 'lock:b'], 8000],
      ['other', undefined, 5000],
      ['lock:c', undefined, 7000],
    ]);
  });
});
