// A lock's owners (its holders, their last acts), keyed by owner: a Map that is cheap to empty.
// Most locks have one owner at a time, so such a map goes from one entry to none at every release,
// and a V8 Map whose last entry is deleted shrinks its table: a runtime call and a new table per
// hold, a good share of the trace checker's cost per event and of its garbage. This one keeps its
// oldest entry in two fields and only the others in a Map (made at the first second owner), so a
// lock taken by one owner at a time never touches a Map. Insertion order is a Map's.

export class OwnerMap<V> implements ReadonlyMap<string, V> {
  /** The oldest entry; undefined only when the map is empty. */
  private firstKey: string | undefined;
  private firstValue: V | undefined;
  /** The newer entries, in insertion order. */
  private rest: Map<string, V> | undefined;

  get size(): number {
    return this.firstKey === undefined ? 0 : 1 + (this.rest?.size ?? 0);
  }

  get(key: string): V | undefined {
    return key === this.firstKey ? this.firstValue : this.rest?.get(key);
  }

  has(key: string): boolean {
    return key === this.firstKey || (this.rest?.has(key) ?? false);
  }

  set(key: string, value: V): this {
    if (this.firstKey === undefined || key === this.firstKey) {
      this.firstKey = key;
      this.firstValue = value;
    } else (this.rest ??= new Map()).set(key, value);
    return this;
  }

  delete(key: string): boolean {
    if (key !== this.firstKey) return this.rest?.delete(key) ?? false;
    // The next oldest becomes the first.
    const next = this.rest?.size ? this.rest.entries().next().value : undefined;
    if (next) this.rest!.delete(next[0]);
    this.firstKey = next?.[0];
    this.firstValue = next?.[1];
    return true;
  }

  clear(): void {
    this.firstKey = this.firstValue = undefined;
    this.rest?.clear();
  }

  /** Iterates a copy of the entries: an entry may be deleted or added during the walk. */
  entries(): MapIterator<[string, V]> {
    const all: [string, V][] = this.firstKey === undefined ? [] : [[this.firstKey, this.firstValue as V]];
    if (this.rest) for (const entry of this.rest) all.push(entry);
    return all.values();
  }

  keys(): MapIterator<string> {
    return Array.from(this.entries(), ([key]) => key).values();
  }

  values(): MapIterator<V> {
    return Array.from(this.entries(), ([, value]) => value).values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.entries()) fn(value, key, this);
  }
}
