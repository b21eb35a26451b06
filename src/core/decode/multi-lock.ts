// Redisson's group multi-lock, `getMultiLock(group, values)` (docs/lock-formats.md, "Redisson's
// newer objects"): one hash named after the group. Each value locked is a field holding its
// owner's `<uuid>:<thread>`, and beside it two fields per owner: `<value>:<owner>:expire_time`
// (epoch ms) and `<value>:<owner>:lock_count` (re-entries). A value whose expire_time has passed
// counts as free to the next locker even while its fields remain; the key's own PEXPIRE is the
// longest lease. Values are stored as Redisson's 128-bit hash of their encoded form, base64 with
// the two padding characters cut (22 characters), so the names cannot be read back.

import type { HolderView, LockWarning, MultiLockValueView } from '../lock-view.js';
import type { KindFields } from './fields.js';
import { sampledWarning } from './hash.js';
import { holderView, isHolderEntry } from './holders.js';
import type { RawSnapshot } from './raw.js';
import { warn } from './warnings.js';

const VALUE = /^[A-Za-z0-9+/]{22}$/;
const SIDE_FIELD = /^([A-Za-z0-9+/]{22}):(.+):(expire_time|lock_count)$/;
const INTEGER = /^\d+$/;

/** Whether `text` has the form Redisson stores a value in (its hash, 22 base64 characters). */
export const isMultiLockValue = (text: string): boolean => VALUE.test(text);

/** Each owner of a group's value fields and how many values it holds (whatever their expiry). */
export function multiLockOwners(body: readonly unknown[]): Map<string, number> {
  const owners = new Map<string, number>();
  for (let i = 0; i + 1 < body.length; i += 2) {
    const [field, owner] = [body[i], body[i + 1]];
    if (typeof field === 'string' && typeof owner === 'string' && VALUE.test(field)) owners.set(owner, (owners.get(owner) ?? 0) + 1);
  }
  return owners;
}

/** Whether every field of a hash body is one a group multi-lock writes, and at least one value is held. */
export function isMultiLockBody(body: readonly string[]): boolean {
  let values = 0;
  for (let i = 0; i + 1 < body.length; i += 2) {
    const field = body[i]!;
    const value = body[i + 1]!;
    if (VALUE.test(field) && isHolderEntry(value, '1')) values += 1;
    else if (!(SIDE_FIELD.test(field) && INTEGER.test(value))) return false;
  }
  return values > 0;
}

/** Each value locked, its owner's hold count and lease left; holders are the distinct owners. */
export function decodeMultiLock(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const side = new Map<string, string>();
  for (let i = 0; i + 1 < raw.body.length; i += 2) if (SIDE_FIELD.test(raw.body[i]!)) side.set(raw.body[i]!, raw.body[i + 1]!);
  const values: MultiLockValueView[] = [];
  for (let i = 0; i + 1 < raw.body.length; i += 2) {
    const field = raw.body[i]!;
    if (!VALUE.test(field)) continue;
    const owner = raw.body[i + 1]!;
    const expireAt = side.get(`${field}:${owner}:expire_time`);
    const count = Number(side.get(`${field}:${owner}:lock_count`) ?? 0);
    const leaseLeftMs = expireAt === undefined ? null : Number(expireAt) - raw.nowMs;
    values.push({ value: field, owner, count, leaseLeftMs });
  }
  values.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  sampledWarning(raw, warnings);
  const lapsed = values.filter((v) => v.leaseLeftMs !== null && v.leaseLeftMs <= 0).length;
  if (lapsed > 0) {
    warnings.push(warn('multi-lock-lapsed', 'info', `${lapsed} of ${values.length} values have passed their lease: Redisson treats them as free; the next lock of the group overwrites them`));
  }
  warnings.push(
    warn('multi-lock-values-hashed', 'info', "Redisson stores each value as a 128-bit hash of its encoded form: the values' names cannot be read back"),
  );
  return { holders: ownersOf(values), multiLockValues: values, waiters: raw.channels.lock };
}

/** One holder per owner with a live lease, counting the values it holds (a lapsed value is free to Redisson). */
function ownersOf(values: readonly MultiLockValueView[]): HolderView[] {
  const counts = new Map<string, number>();
  for (const v of values) if (v.leaseLeftMs === null || v.leaseLeftMs > 0) counts.set(v.owner, (counts.get(v.owner) ?? 0) + 1);
  return [...counts].map(([owner, n]) => holderView(owner, String(n)));
}
