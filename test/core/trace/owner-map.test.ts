import { describe, expect, it } from 'vitest';
import { OwnerMap } from '../../../src/core/trace/owner-map.js';

// OwnerMap keeps its oldest entry in fields and the rest in a Map: it must read like a Map
// whatever the order of sets and deletes, the oldest entry's delete included.

describe('OwnerMap', () => {
  it('answers like a Map over a long random run of sets and deletes, in insertion order', () => {
    const owners = new OwnerMap<number>();
    const map = new Map<string, number>();
    const mismatches: string[] = [];
    let seed = 11;
    for (let i = 0; i < 5_000; i++) {
      seed = (seed * 48271) % 2147483647;
      const key = `o${seed % 5}`;
      let answers: [unknown, unknown];
      if (seed % 3 === 0) answers = [owners.delete(key), map.delete(key)];
      else answers = [owners.set(key, i).get(key), map.set(key, i).get(key)];
      const ours = JSON.stringify([answers[0], owners.size, owners.has(key), [...owners]]);
      const maps = JSON.stringify([answers[1], map.size, map.has(key), [...map]]);
      if (ours !== maps && mismatches.length < 3) mismatches.push(`step ${i}: ${ours} vs ${maps}`);
    }
    expect(mismatches).toEqual([]);
    expect([...owners.keys()]).toEqual([...map.keys()]);
    expect([...owners.values()]).toEqual([...map.values()]);
  });

  it('takes the next oldest as its first when the first is deleted, and walks a copy', () => {
    const owners = new OwnerMap<string>().set('a', 'A').set('b', 'B').set('c', 'C');
    owners.delete('a');
    owners.set('d', 'D');
    expect([...owners.keys()]).toEqual(['b', 'c', 'd']);
    const seen: string[] = [];
    for (const [key] of owners) {
      seen.push(key);
      owners.delete(key); // every entry deleted during the walk is still walked once
    }
    expect(seen).toEqual(['b', 'c', 'd']);
    expect(owners.size).toBe(0);
    owners.set('e', 'E');
    owners.clear();
    expect([...owners]).toEqual([]);
    expect(owners.get('e')).toBeUndefined();
  });
});
