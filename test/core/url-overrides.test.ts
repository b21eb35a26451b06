import { describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { overrideEndpoint, parseDb, parsePort } from '../../src/core/url-overrides.js';

const overrideUrl = (url: string, o: Parameters<typeof overrideEndpoint>[1]) => overrideEndpoint(parseEndpointUrl(url), o);

// redis-cli's flags on top of a URL, and the redis-sentinel:// form: the pure parts.

describe('overrideUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', { host: '10.0.0.5', port: 6380 }, { host: '10.0.0.5', port: 6380, db: 0, tls: false }],
    ['redis://h:1/2', { db: 5 }, { host: 'h', port: 1, db: 5 }],
    ['redis://h:1', { tls: true }, { tls: true }],
    ['redis://h:1', { host: '::1' }, { host: '::1', port: 1 }],
    ['redis://app@h:1', { password: { value: 'p@ss:w%rd', from: 'flag' } }, { username: 'app', password: 'p@ss:w%rd', passwordFrom: 'flag' }],
    ['redis://:old@h:1', { user: 'ops', password: { value: 'new', from: 'prompt' } }, { username: 'ops', password: 'new' }],
  ] as const)('%s with %o', (url, overrides, expected) => {
    expect(overrideUrl(url, overrides)).toMatchObject(expected);
  });

  it('rejects a host, port or db that is not one', () => {
    expect(() => overrideUrl('redis://h:1', { host: 'a/b' })).toThrow(/invalid host "a\/b"/);
    expect(() => parsePort('0')).toThrow(/1 to 65535/);
    expect(() => parsePort('70000')).toThrow(/1 to 65535/);
    expect(() => parseDb('x')).toThrow(/invalid database "x"/);
  });
});

describe('Sentinel URLs', () => {
  it('sentinels, master name, and the master credentials and db', () => {
    expect(parseEndpointUrl('redis-sentinel://app:s%40cret@127.0.0.1:26379,[::1]:26380/3#mymaster')).toMatchObject({
      username: 'app',
      password: 's@cret',
      db: 3,
      tls: false,
      sentinels: [{ host: '127.0.0.1', port: 26379 }, { host: '::1', port: 26380 }],
      masterName: 'mymaster',
    });
    expect(parseEndpointUrl('rediss-sentinel://h:1#m').tls).toBe(true);
    expect(parseEndpointUrl('redis://h:1').sentinels).toBeUndefined();
  });

  it('a Sentinel URL without a master name is a usage error naming the form', () => {
    expect(() => parseEndpointUrl('redis-sentinel://h:1,h:2')).toThrow(/redis-sentinel:\/\/.*#master-name/);
  });
});
