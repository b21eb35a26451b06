// Names a user of another lock library (Redisson, redis-semaphore, consul, redis-cli) types
// for what this tool calls something else: read by every --kind parser and by the program's
// unknown-command check, so each error says "did you mean" with our name.

import { didYouMean, nearestNames } from './completion.js';

/** Other libraries' lock kinds (lower case, without - _ or spaces) and ours, for acquire and inspect alike. */
const FOREIGN_KINDS: Readonly<Record<string, readonly string[]>> = {
  rlock: ['reentrant'],
  lock: ['reentrant'],
  reentrantlock: ['reentrant'],
  redissonlock: ['reentrant'],
  rfairlock: ['fair'],
  fairlock: ['fair'],
  rreadwritelock: ['read', 'write', 'rw'],
  readwritelock: ['read', 'write', 'rw'],
  readwrite: ['read', 'write', 'rw'],
  rwlock: ['read', 'write', 'rw'],
  readlock: ['read'],
  writelock: ['write'],
  rspinlock: ['spin'],
  spinlock: ['spin'],
  rfencedlock: ['fenced'],
  fencedlock: ['fenced'],
  mutex: ['token'],
  redismutex: ['token'],
  redlockmutex: ['redlock'],
  rsemaphore: ['semaphore'],
  semaphorelock: ['rs-semaphore', 'semaphore'],
  multisemaphore: ['rs-semaphore'],
  redlocksemaphore: ['rs-semaphore'],
  rpermitexpirablesemaphore: ['expirable-semaphore'],
  permitexpirablesemaphore: ['expirable-semaphore'],
  rcountdownlatch: ['latch'],
  countdownlatch: ['latch'],
  session: ['token'],
  consul: ['token'],
};

/** Other tools' command names and ours: Redisson's lock()/unlock(), consul lock, redis-cli INFO, ... */
export const FOREIGN_COMMANDS: Readonly<Record<string, string>> = {
  lock: 'acquire',
  trylock: 'acquire',
  unlock: 'release',
  forceunlock: 'force-unlock',
  info: 'inspect',
  get: 'inspect',
  show: 'inspect',
  list: 'ls',
  keys: 'ls',
  scan: 'ls',
  extend: 'renew',
  monitor: 'trace',
};

const normalise = (text: string): string => text.toLowerCase().replace(/[-_\s]/g, '');

/** Our names for a mistyped or foreign kind: its known equivalents among `valid`, else the nearest spelling. */
export function suggestKinds(text: string, valid: readonly string[]): string[] {
  const known = (FOREIGN_KINDS[normalise(text)] ?? []).filter((k) => valid.includes(k));
  return known.length > 0 ? known : nearestNames(text, valid);
}

/** `unknown lock kind "rlock" (Did you mean reentrant?): use one of ...`: the line every --kind (and race choice) parser throws. */
export function unknownChoiceMessage(what: string, text: string, valid: readonly string[]): string {
  return `unknown ${what} "${text}"${didYouMean(suggestKinds(text, valid))}: use one of ${valid.join(', ')}`;
}
