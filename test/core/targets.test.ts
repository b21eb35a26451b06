import { describe, expect, it } from 'vitest';
import { checkTargetName, maskUrl, splitPassword, targetPasswordEnv, withPassword } from '../../src/core/targets.js';
import { parseRedisUrl } from '../../src/redis/target.js';

describe('target URLs', () => {
  it.each([
    ['redis://app:secret@10.0.0.5:6380/2', 'redis://app@10.0.0.5:6380/2', 'secret'],
    ['rediss://:s3cret@redis.example.com', 'rediss://redis.example.com', 's3cret'],
    ['redis://app:p%40ss%3Aw%25rd@h:1', 'redis://app@h:1', 'p@ss:w%rd'],
    ['redis://h:1', 'redis://h:1', undefined],
  ])('splitPassword(%s) keeps the user and drops the password', (url, bare, password) => {
    expect(splitPassword(url)).toEqual(password === undefined ? { url: bare } : { url: bare, password });
  });

  it.each(['secret', 'p@ss:w%rd/?#', 'späce and é', '%41'])('withPassword round-trips %j through parseRedisUrl', (password) => {
    const url = withPassword('redis://app@127.0.0.1:6380/1', password);
    expect(parseRedisUrl(url)).toMatchObject({ username: 'app', password, host: '127.0.0.1', port: 6380, db: 1 });
  });

  it('maskUrl hides any password and leaves a password-free URL as it is', () => {
    expect(maskUrl('rediss://app:secret@h:6380/0')).toBe('rediss://app:***@h:6380/0');
    expect(maskUrl('redis://:secret@h')).toBe('redis://:***@h');
    expect(maskUrl('redis://app@h:1')).toBe('redis://app@h:1');
  });

  it('names map to REDLOCK_PASSWORD_<NAME>, and names that cannot are refused', () => {
    expect(targetPasswordEnv('prod')).toBe('REDLOCK_PASSWORD_PROD');
    expect(targetPasswordEnv('eu-west_2')).toBe('REDLOCK_PASSWORD_EU_WEST_2');
    for (const bad of ['', '-x', 'a b', 'a.b', 'x'.repeat(65), 'ünï']) expect(() => checkTargetName(bad)).toThrow(/invalid target name/);
  });
});
