import { lockChannel, rwChannel } from '../names.js';

/**
 * Whether a pub/sub channel is one a Redisson waiter of this lock subscribes to: the unlock channel
 * `redisson_lock__channel:{key}`, a fair waiter's own `…:{key}:<owner>`, or the read-write lock's.
 */
export function isLockChannel(key: string, channel: string): boolean {
  const unlock = lockChannel(key);
  return channel === unlock || channel.startsWith(`${unlock}:`) || channel === rwChannel(key);
}
