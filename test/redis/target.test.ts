import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { describe, expect, it } from 'vitest';
import { describeTarget, parseHostList } from '../../src/redis/target.js';

const parseRedisUrl = (text: string) => parseEndpointUrl(text);

describe('Redis URLs', () => {
  it('parses user, password, db and TLS', () => {
    expect(parseRedisUrl('rediss://app:s%40cret@redis.example:6380/3')).toEqual({
      host: 'redis.example', port: 6380, tls: true, username: 'app', password: 's@cret', passwordFrom: 'url', db: 3,
    });
    expect(parseRedisUrl('redis://[::1]')).toMatchObject({ host: '::1', port: 6379, db: 0, tls: false });
  });
  it('rejects other schemes and bad databases as usage errors', () => {
    expect(() => parseRedisUrl('http://x')).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => parseRedisUrl('redis://x/abc')).toThrow(/invalid database/);
    expect(() => parseRedisUrl('not a url')).toThrow(/invalid Redis URL/);
  });
  it('never puts the password in the description', () => {
    const text = describeTarget(parseEndpointUrl('redis://u:hunter2@10.0.0.1:6380/2'));
    expect(text).toBe('10.0.0.1:6380/2');
    expect(text).not.toContain('hunter2');
  });
  it('describes Sentinel and Cluster targets', () => {
    expect(describeTarget({ ...parseEndpointUrl('redis://:pw@x'), sentinels: parseHostList('127.0.0.1:26379,[::1]:26380', '--sentinel'), masterName: 'm' }))
      .toBe('sentinel 127.0.0.1:26379,[::1]:26380 master m');
    expect(describeTarget({ ...parseEndpointUrl('redis://x'), clusterNodes: parseHostList('a:7000', '--cluster') })).toBe('cluster a:7000');
  });
  it('rejects malformed host lists', () => {
    expect(() => parseHostList('a:b', '--cluster')).toThrow('invalid --cluster entry "a:b": expected host:port, e.g. 127.0.0.1:26379');
    expect(() => parseHostList(',', '--sentinel')).toThrow(/at least one/);
  });
});
