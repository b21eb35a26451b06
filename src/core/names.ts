// Redisson's key and channel naming (docs/redisson-protocol.md §1.1, §3). Every derived name keeps the
// object's hash tag, so all keys and channels of one lock live in one Cluster slot.

/** `{name}` unless the name already carries a brace (then Redisson reuses it as is). */
export function braced(name: string): string {
  return name.includes('{') ? name : `{${name}}`;
}

/** Redisson's prefixName: `prefix:{name}`. */
export function prefixName(prefix: string, name: string): string {
  return `${prefix}:${braced(name)}`;
}

/** Redisson's suffixName: `{name}:suffix`. */
export function suffixName(name: string, suffix: string): string {
  return `${braced(name)}:${suffix}`;
}

export const lockChannel = (name: string): string => prefixName('redisson_lock__channel', name);
export const fairWaiterChannel = (name: string, holder: string): string => `${lockChannel(name)}:${holder}`;
export const fairQueueKey = (name: string): string => prefixName('redisson_lock_queue', name);
export const fairTimeoutKey = (name: string): string => prefixName('redisson_lock_timeout', name);
export const rwChannel = (name: string): string => prefixName('redisson_rwlock', name);
export const fencedTokenKey = (name: string): string => prefixName('redisson_lock_token', name);
/** Prefix of one read holder's per-hold timeout keys; individual keys append `:1`, `:2`, ... */
export const rwTimeoutPrefix = (name: string, holder: string): string => `${suffixName(name, holder)}:rwlock_timeout`;
