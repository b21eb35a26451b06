// Lock names as metric labels: a lock name is unbounded (one key per order, per user, per job),
// a Prometheus series per name is not affordable. Each name is put in a group: the first
// `--group <glob>=<name>` rule it matches, else the name with its ids collapsed (`orders:17` and
// `orders:42` are both `orders:{n}`). Past a hard cap of groups, new ones go to `other`, so the
// number of series has a ceiling stated at start-up.

import { UsageError } from '../errors.js';
import { globMatcher } from '../trace/pattern.js';

export interface GroupRule {
  readonly glob: string;
  readonly name: string;
  readonly matches: (lock: string) => boolean;
}

/** The group every lock goes to once the cap is reached. */
export const OTHER_GROUP = 'other';
export const DEFAULT_GROUP_CAP = 20;
/** Names remembered with their group; past this the memo starts again (a busy keyspace has millions). */
const MEMO_LIMIT = 50_000;

/** `orders:*=orders` -> a rule; a usage error naming the flag when it is not `<glob>=<name>`. */
export function parseGroupRule(text: string): GroupRule {
  const at = text.lastIndexOf('=');
  const glob = at > 0 ? text.slice(0, at) : '';
  const name = at > 0 ? text.slice(at + 1).trim() : '';
  if (glob === '' || name === '') throw new UsageError(`--group ${JSON.stringify(text)}: expected <glob>=<group name>, e.g. --group 'orders:*=orders'`);
  if (name === OTHER_GROUP) throw new UsageError(`--group ${JSON.stringify(text)}: "${OTHER_GROUP}" is the overflow group; pick another name`);
  return { glob, name, matches: globMatcher(glob) };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** A word of 16 or more letters and digits, or of 8 or more hex digits, with a digit in it: a token, a hash, an object id. */
const LONG_ID = /(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{16,}(?![A-Za-z0-9_])|(?<![0-9a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}(?![0-9a-f])/gi;
const NUMBER = /\d+/g;

/** The name with uuids, long ids and numbers replaced: `orders:{n}`, `job:{uuid}`, `cart:{id}`. */
export function collapseIds(lock: string): string {
  return lock.replace(UUID, '{uuid}').replace(LONG_ID, '{id}').replace(NUMBER, '{n}');
}

/** Lock name -> group label, with the cap enforced; counts how many names went to `other`. */
export class LockGrouper {
  private readonly groups = new Set<string>();
  private readonly memo = new Map<string, string>();
  /** Names put in `other` because the cap was reached. */
  overflowed = 0;

  constructor(
    private readonly rules: readonly GroupRule[],
    readonly cap: number = DEFAULT_GROUP_CAP,
  ) {}

  groupOf(lock: string): string {
    const known = this.memo.get(lock);
    if (known !== undefined) return known;
    const wanted = this.rules.find((r) => r.matches(lock))?.name ?? collapseIds(lock);
    let group = wanted;
    if (!this.groups.has(wanted)) {
      if (this.groups.size < this.cap) this.groups.add(wanted);
      else group = OTHER_GROUP;
    }
    if (group === OTHER_GROUP) this.overflowed++;
    if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
    this.memo.set(lock, group);
    return group;
  }

  /** Groups in use (without `other`). */
  get size(): number {
    return this.groups.size;
  }
}
