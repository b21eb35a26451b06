import { describe, expect, it } from 'vitest';
import { overrideUrl, parseDb, parsePort } from '../../src/core/url-overrides.js';
import { parseRedisUrl, parseSentinelUrl } from '../../src/redis/target.js';

// redis-cli's flags on top of a URL, and the redis-sentinel:// form: the pure parts.

describe('overrideUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', { host: '10.0.0.5', port: 6380 }, { host: '10.0.0.5', port: 6380, db: 0, tls: false }],
    ['redis://h:1/2', { db: 5 }, { host: 'h', port: 1, db: 5 }],
    ['redis://h:1', { tls: true }, { tls: true }],
    ['redis://h:1', { host: '::1' }, { host: '::1', port: 1 }],
    ['redis://app@h:1', { password: 'p@ss:w%rd' }, { username: 'app', password: 'p@ss:w%rd' }],
    ['redis://:old@h:1', { user: 'ops', password: 'new' }, { username: 'ops', password: 'new' }],
  ] as const)('%s with %o', (url, overrides, expected) => {
    expect(parseRedisUrl(overrideUrl(url, overrides))).toMatchObject(expected);
  });

  it('rejects a host, port or db that is not one', () => {
    expect(() => overrideUrl('redis://h:1', { host: 'a/b' })).toThrow(/invalid host "a\/b"/);
    expect(() => parsePort('0')).toThrow(/1 to 65535/);
    expect(() => parsePort('70000')).toThrow(/1 to 65535/);
    expect(() => parseDb('x')).toThrow(/invalid database "x"/);
  });
});

describe('parseSentinelUrl', () => {
  it('sentinels, master name, and the master credentials and db', () => {
    expect(parseSentinelUrl('redis-sentinel://app:s%40cret@127.0.0.1:26379,[::1]:26380/3#mymaster')).toEqual({
      url: 'redis://app:s%40cret@127.0.0.1:26379/3',
      sentinels: [{ host: '127.0.0.1', port: 26379 }, { host: '::1', port: 26380 }],
      masterName: 'mymaster',
    });
    expect(parseSentinelUrl('rediss-sentinel://h:1#m')?.url).toBe('rediss://h:1');
    expect(parseSentinelUrl('redis://h:1')).toBeUndefined();
  });

  it('a Sentinel URL without a master name is a usage error naming the form', () => {
    expect(() => parseSentinelUrl('redis-sentinel://h:1,h:2')).toThrow(/redis-sentinel:\/\/.*#master-name/);
  });
});
