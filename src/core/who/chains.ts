// The blocked-by chains across locks: A waits for lock 1, held by B, who waits for lock 2, held by
// C. A party is its connection when it was resolved to one (one process waiting on one connection
// and holding on it), else its owner's client id (a Redisson client's `<uuid>` is the same for every
// lock it takes), else the owner itself.

import type { ChainParty, WhoChain, WhoLock } from './model.js';

/** At most this many chains are drawn: a pile-up behind one holder is one chain per waiter. */
const MAX_CHAINS = 50;

interface Wait {
  readonly lock: string;
  readonly holder: ChainParty;
}

const REDISSON_OWNER = /^([0-9a-f]{8}-[0-9a-f-]{27}):-?\d+(?::write)?$/;

/** The identity of a party across locks. */
export function partyId(p: ChainParty): string {
  if (p.connection) return `conn ${p.connection.addr}`;
  const client = REDISSON_OWNER.exec(p.owner)?.[1];
  return client !== undefined ? `client ${client}` : `owner ${p.owner}`;
}

/** Each party's waits: which lock it waits for, and who holds it. */
function waitsOf(locks: readonly WhoLock[]): Map<string, { party: ChainParty; waits: Wait[] }> {
  const out = new Map<string, { party: ChainParty; waits: Wait[] }>();
  for (const lock of locks) {
    for (const waiter of lock.waiters) {
      const id = partyId(waiter);
      const entry = out.get(id) ?? { party: waiter, waits: [] };
      for (const holder of lock.holders) if (partyId(holder) !== id) entry.waits.push({ lock: lock.key, holder });
      out.set(id, entry);
    }
  }
  return out;
}

/** Every chain of two or more waits, from a waiter nobody waits for; a deadlock's cycle once. */
export function blockedByChains(locks: readonly WhoLock[]): WhoChain[] {
  const waits = waitsOf(locks);
  const blocking = new Set([...waits.values()].flatMap((w) => w.waits.map((x) => partyId(x.holder))));
  const chains: WhoChain[] = [];
  const inChain = new Set<string>();
  const walk = (start: ChainParty, path: Wait[], seen: Set<string>, cyclesOnly: boolean): void => {
    if (chains.length >= MAX_CHAINS) return;
    const last = path.at(-1);
    const here = last ? last.holder : start;
    const next = waits.get(partyId(here))?.waits ?? [];
    const onward = next.filter((w) => !seen.has(partyId(w.holder)) || partyId(w.holder) === partyId(start));
    if (onward.length === 0) {
      if (path.length >= 2 && !cyclesOnly) chains.push({ waiter: start, links: path, cycle: false });
      return;
    }
    for (const w of onward) {
      const id = partyId(w.holder);
      if (id === partyId(start)) {
        chains.push({ waiter: start, links: [...path, w], cycle: true });
        for (const x of [...path, w]) inChain.add(partyId(x.holder));
        continue;
      }
      walk(start, [...path, w], new Set([...seen, id]), cyclesOnly);
    }
  };
  for (const [id, { party }] of waits) if (!blocking.has(id)) walk(party, [], new Set([id]), false);
  // Parties that every other one waits for: only a cycle (a deadlock) has no start; draw it once.
  for (const [id, { party }] of waits) if (blocking.has(id) && !inChain.has(id)) walk(party, [], new Set([id]), true);
  return chains;
}
