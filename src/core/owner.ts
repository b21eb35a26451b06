import { UsageError } from './errors.js';

/** A Redisson holder: client instance UUID plus thread id; the hash field is `<uuid>:<thread>`. */
export interface RedissonOwner {
  readonly client: string;
  readonly thread: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOLDER = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(-?\d+)(:write)?$/;

const JAVA_LONG_MAX = 2n ** 63n - 1n;

export function formatOwner(owner: RedissonOwner): string {
  return `${owner.client}:${owner.thread}`;
}

/** Parses `--owner <uuid>:<thread>` (Redisson's lock name); a `:write` suffix is accepted and dropped. */
export function parseRedissonOwner(text: string): RedissonOwner {
  const match = HOLDER.exec(text.trim().toLowerCase());
  if (!match) {
    throw new UsageError(
      `invalid owner "${text}": expected <uuid>:<thread>, e.g. 6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1`,
    );
  }
  const thread = match[2]!;
  // Redisson writes Java's Thread.getId(), a long, as Long.toString: any other spelling never matches its field.
  if (BigInt(thread) > JAVA_LONG_MAX || BigInt(thread) < -JAVA_LONG_MAX - 1n || BigInt(thread).toString() !== thread) {
    throw new UsageError(`invalid owner "${text}": the thread id must be a Java long written without leading zeros (-9223372036854775808..9223372036854775807)`);
  }
  return { client: match[1]!, thread };
}

/** Decodes a Redisson hash field into its holder parts, or undefined if it is not one. */
export function decodeHolderField(field: string): (RedissonOwner & { readonly write: boolean }) | undefined {
  const match = HOLDER.exec(field);
  if (!match) return undefined;
  return { client: match[1]!, thread: match[2]!, write: match[3] !== undefined };
}

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** The field a write lock holder uses (`<uuid>:<thread>:write`). */
export const writeHolder = (holder: string): string => `${holder}:write`;
