import calculateSlot from 'cluster-key-slot';
import { bytesToText } from '../core/decode/escape.js';
import { braced, fairQueueKey, fairTimeoutKey, fencedTokenKey, lockChannel, prefixName, rwChannel, suffixName } from '../core/names.js';

/** A key as typed (string) or as SCAN returned it (Buffer: names that are not UTF-8). */
export type InspectKey = string | Buffer;

export const semaphoreChannel = (name: string): string => prefixName('redisson_sc', name);
/** RCountDownLatch always wraps the name in braces, even one that has its own (protocol §2.9, §5). */
export const latchChannel = (name: string): string => `redisson_countdownlatch__channel__{${name}}`;

/** KEYS and channel ARGV of inspect-snapshot.lua for one key, and how to show the key. */
export interface ScriptTarget {
  readonly display: string;
  readonly keyHex?: string | undefined;
  readonly keys: readonly InspectKey[];
  readonly channels: readonly InspectKey[];
  readonly companionsRead: boolean;
  /** Client ids of a PER_CLIENT rate limiter whose states the script reads (ARGV[9..]). */
  readonly limiterClients: readonly string[];
}

/**
 * Redisson derives every companion name by string concatenation. A Buffer name is carried
 * through latin1 (one char per byte), so the derived names keep the exact bytes. `companions`
 * false reads the key alone (a Cluster slot that is moving serves no script over several keys).
 */
export function scriptTarget(key: InspectKey, cluster: boolean, companions = true, limiterClients: readonly string[] = []): ScriptTarget {
  const binary = typeof key !== 'string';
  const name = binary ? key.toString('latin1') : key;
  const encode = (s: string): InspectKey => (binary ? Buffer.from(s, 'latin1') : s);
  const shown = binary ? bytesToText(key) : { text: key };
  let keys: InspectKey[] = [key, ...[fairQueueKey(name), fairTimeoutKey(name), fencedTokenKey(name), suffixName(name, 'timeout'), braced(name), suffixName(name, 'value'), suffixName(name, 'permits')].map(encode)];
  // A shebang script refuses KEYS from several slots; a name whose braces do not form a hash
  // tag (`{}abc`) puts its companions elsewhere, so on a Cluster those are left unread.
  const slot = cluster ? calculateSlot(key) : 0;
  const companionsRead = companions && (!cluster || keys.every((k) => calculateSlot(k) === slot));
  if (!companionsRead) keys = keys.map(() => key);
  return {
    display: shown.text,
    keyHex: shown.hex,
    keys,
    channels: [lockChannel(name), rwChannel(name), semaphoreChannel(name), latchChannel(name)].map(encode),
    companionsRead,
    limiterClients: companionsRead ? limiterClients : [],
  };
}
