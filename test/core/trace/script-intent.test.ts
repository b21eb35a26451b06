import { describe, expect, it } from 'vitest';
import { intentFromCommands, scriptIntent } from '../../../src/core/trace/script-intent.js';

// What a script means to do decides how a run that changed nothing is read. These bodies are
// written for the test in each library's manner; the libraries' own are only in the catalogue.

const OWNER = '6f1c2a3b-0000-4000-8000-000000000001:1';

describe('scriptIntent', () => {
  it.each([
    [
      'a fair tryLock that drops stale waiters and takes the lock without queueing',
      "redis.call('zrem', KEYS[3], w); redis.call('lpop', KEYS[2]); if redis.call('exists', KEYS[1]) == 0 then redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return 1;",
      'acquire',
    ],
    ['a semaphore permit given back', "return redis.call('zrem', KEYS[1], ARGV[1])", 'release'],
    [
      'a hold decremented',
      "if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end; redis.call('hincrby', KEYS[1], ARGV[3], -1)",
      'release',
    ],
    [
      'a lease moved for the holder',
      "if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) return 1 end return 0",
      'renew',
    ],
  ])('%s', (_what, body, intent) => {
    expect(scriptIntent(body)).toBe(intent);
  });
});

describe('intentFromCommands (a digest whose body is unknown)', () => {
  it.each([
    [
      'a refused acquisition answers with the holder’s PTTL',
      ['job'],
      [
        ['exists', 'job'],
        ['hexists', 'job', OWNER],
        ['pttl', 'job'],
      ],
      'acquire',
    ],
    ['an unlock names its channel', ['job', 'redisson_lock__channel:{job}'], [['hexists', 'job', OWNER]], 'release'],
    [
      'an unlock names its latch',
      ['job', 'redisson_unlock_latch:{job}:0123456789abcdef0123456789abcdef'],
      [['get', 'redisson_unlock_latch:{job}:0123456789abcdef0123456789abcdef']],
      'release',
    ],
    ['a renewal checks the holder’s field', ['job'], [['hexists', 'job', OWNER]], 'renew'],
    ['a token compare refuses a release and an extension alike', ['job'], [['get', 'job']], 'unknown'],
  ] as const)('%s', (_what, keys, commands, intent) => {
    expect(intentFromCommands(keys, commands)).toBe(intent);
  });
});
