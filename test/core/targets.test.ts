import { describe, expect, it } from 'vitest';
import { endpointUrl, parseEndpointUrl, parseHostList } from '../../src/core/endpoint.js';
import { checkTargetName, maskUrl, storedEndpoint, storedTarget, targetPasswordEnv } from '../../src/core/targets.js';

describe('target URLs', () => {
  it.each([
    ['redis://app:secret@10.0.0.5:6380/2', 'redis://app@10.0.0.5:6380/2', 'secret'],
    ['rediss://:s3cret@redis.example.com:6379', 'rediss://redis.example.com:6379', 's3cret'],
    ['redis://app:p%40ss%3Aw%25rd@h:1', 'redis://app@h:1', 'p@ss:w%rd'],
    ['redis://h:1', 'redis://h:1', undefined],
    // Saved in one written form: the port always, no /0.
  ])('a target saved from %s keeps the user and drops the password', (url, bare, password) => {
    const saved = storedTarget(parseEndpointUrl(url), false);
    expect(saved).toEqual({ url: bare, auth: password === undefined ? 'none' : 'ask' });
    expect(storedTarget(parseEndpointUrl(url), true).url).toBe(url);
  });

  it.each(['secret', 'p@ss:w%rd/?#', 'späce and é', '%41'])('a saved password %j round-trips through the URL parser', (password) => {
    const url = endpointUrl({ ...parseEndpointUrl('redis://app@127.0.0.1:6380/1'), password }, 'keep');
    expect(parseEndpointUrl(url)).toMatchObject({ username: 'app', password, host: '127.0.0.1', port: 6380, db: 1 });
  });

  it('a Sentinel target with TLS files is saved and read back as the same endpoint', () => {
    const ep = {
      ...parseEndpointUrl('rediss://app@127.0.0.1:1/2'),
      sentinels: parseHostList('127.0.0.1:26379,[::1]:26380', '--sentinel'),
      masterName: 'm',
      tlsFiles: { ca: '/ca.pem' },
    };
    const saved = storedTarget(ep, false);
    expect(saved).toEqual({ url: 'rediss://app@127.0.0.1:1/2', sentinel: '127.0.0.1:26379,[::1]:26380', masterName: 'm', tls: { ca: '/ca.pem' }, auth: 'none' });
    expect(storedEndpoint(saved)).toEqual(ep);
  });

  it('maskUrl hides any password and leaves a password-free URL as it is', () => {
    expect(maskUrl('rediss://app:secret@h:6380/0')).toBe('rediss://app:***@h:6380');
    expect(maskUrl('redis://:secret@h')).toBe('redis://:***@h:6379');
    expect(maskUrl('redis://app@h:1')).toBe('redis://app@h:1');
  });

  it('names map to REDLOCK_PASSWORD_<NAME>, and names that cannot are refused', () => {
    expect(targetPasswordEnv('prod')).toBe('REDLOCK_PASSWORD_PROD');
    expect(targetPasswordEnv('eu-west_2')).toBe('REDLOCK_PASSWORD_EU_WEST_2');
    for (const bad of ['', '-x', 'a b', 'a.b', 'x'.repeat(65), 'ünï']) expect(() => checkTargetName(bad)).toThrow(/invalid target name/);
  });
});
