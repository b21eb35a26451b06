// What a lock script means to do, read from its body: the reply is invisible in MONITOR, so a
// refusal is told apart from a failed release or renewal by what the script was written for.
// The commands it ran (MONITOR's `lua` lines) say what actually happened.

import { keyInfo, REDISSON_OWNER } from './keys.js';

const COMMENTS = /--\[\[[\s\S]*?\]\]|--[^\n]*/g;
const TOP_LEVEL_FUNCTIONS = /^local function[\s\S]*?^end[ \t]*$/gm;

export type ScriptIntent = 'acquire' | 'renew' | 'release' | 'force' | 'unknown';

/** Classifies a Lua body (Redisson 3.x/4.x, node-redlock, redsync, redis-py, redis-semaphore, Spring, ours). */
export function scriptIntent(body: string): ScriptIntent {
  // Helper functions defined at the top (our scripts share a prelude of guards) are not the script's purpose.
  const s = body.replace(COMMENTS, '').replace(TOP_LEVEL_FUNCTIONS, '').toLowerCase().replace(/"/g, "'");
  // bsm/redislock's multi-key scripts: MGET reads like GET, MSETNX takes like SET NX.
  const calls = (name: string) =>
    s.includes(`call('${name}'`) || (name === 'get' && s.includes("call('mget'")) || (name === 'set' && s.includes("call('msetnx'"));
  // UNLINK deletes as DEL does (Spring's RedisLockRegistry unlocks with it).
  const deletes = calls('del') || calls('unlink');
  // Redisson's rate limiter reads its `rate` and `interval`: only its tryAcquire takes (DECRBY);
  // setRate, release and availablePermits write settings or counts, none of them a lock's intent.
  if (s.includes("'rate'") && s.includes("'interval'")) return calls('decrby') ? 'acquire' : 'unknown';
  // Releases decrement a hold (Redisson) or compare-and-delete a token.
  if (/'hincrby'[^)]*-\s*1\s*\)/.test(s)) return 'release';
  if (deletes && calls('get') && !calls('set') && !calls('pexpire') && !calls('exists')) return 'release';
  // python-redis-lock's release compares, then refills its waiters' wake-up list (LPUSH) and deletes.
  if (deletes && calls('get') && calls('lpush') && !calls('set')) return 'release';
  // Removing waiters is a release unless the script then takes the lock (a fair tryLock that does not queue).
  if (calls('zrem') && !calls('zadd') && !calls('hset') && !calls('hincrby')) return 'release';
  if (calls('incrby') && !calls('decrby') && !calls('get')) return 'release';
  // Redisson's group multi-lock keeps `<value>:<owner>:expire_time` fields: its renewal moves them
  // (HSET) but, unlike its lock, never counts a hold (HINCRBY).
  if (s.includes(":expire_time'") && calls('hset') && !calls('hincrby')) return 'renew';
  // Acquisitions add a hold, set a token only where none is, or take permits.
  if (calls('hincrby') || calls('hset') || calls('decrby') || calls('zadd')) return calls('hexists') && !calls('exists') && !calls('hset') && !calls('hincrby') ? 'renew' : 'acquire';
  if (calls('set') && (s.includes("'nx'") || s.includes("call('msetnx'") || calls('exists'))) return 'acquire';
  // A SET ... PX where the key is free and a PEXPIRE where it holds the caller's own id: Spring's
  // re-entrant obtain. redis-semaphore's refresh has the same branches but SETs without PX and
  // then PEXPIREs: it is called by a holder (a renewal that re-takes a lock lost meanwhile).
  if (calls('pexpire') && calls('get') && /call\('set'[^)]*'px'/.test(s)) return 'acquire';
  // Renewals move an expiry after checking the holder.
  if ((calls('pexpire') || calls('expire') || calls('set')) && (calls('hexists') || calls('get') || calls('hget'))) return 'renew';
  if (deletes && !calls('get') && !calls('hexists')) return 'force';
  return 'unknown';
}

/**
 * What a script whose body was never seen meant to do (an EVALSHA of a digest neither loaded in
 * the stream nor in the catalogue), read from what it ran even when it changed nothing: Redisson's
 * acquisitions answer a refusal with the holder's PTTL, its unlocks name in KEYS the channel they
 * publish on or the unlock latch, its renewals only check the caller's field. A token script's
 * GET-and-compare refuses a release and an extension alike: that stays unknown.
 */
export function intentFromCommands(keys: readonly string[], commands: readonly (readonly string[])[]): ScriptIntent {
  const names = commands.map((c) => c[0]!.toLowerCase());
  if (names.includes('pttl') || names.includes('ttl')) return 'acquire';
  if (keys.some((k) => ['channel', 'latch'].includes(keyInfo(k).role))) return 'release';
  const probesOwner = (c: readonly string[]) => /^h(exists|get)$/i.test(c[0]!) && REDISSON_OWNER.test(c[2] ?? '');
  return commands.some(probesOwner) ? 'renew' : 'unknown';
}
