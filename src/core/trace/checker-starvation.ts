// Starvation, proven from the command stream and the server's clock: an owner that asked for a
// lock, was refused, and stayed out while the lock was never free. Two shapes prove it is kept
// out, not merely unlucky (a lock that is free for a moment gave the waiter its chance, so a free
// moment ends a wait):
//
// - overtaken: holds that began after its first refusal (readers joining a read lock whenever it
//   is in read mode) kept the lock held; OVERTAKEN_BOUND of them is more than any fair or
//   writer-preferring discipline lets in ahead of a waiter.
// - a zombie renewer: the holders it waited for did nothing on the lock but renew it, for longer
//   than RENEWED_LEASES_BOUND of their own leases: a holder whose worker hangs while its watchdog
//   lives on (or a job that long; the trace cannot tell a slow job from a hung one).
//
// Liveness, not safety: nobody was inside with anyone else, so the finding is not unsafe.

import type { IssueFinding, NewFinding } from './checker.js';
import { formatMs } from '../duration.js';
import { clientLabel, shortOwner, type TraceClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';

/** Holds begun after a waiter's first refusal, without a free moment, that make it starved. */
export const OVERTAKEN_BOUND = 2;
/** Leases of its holders a waiter waits, while they only renew, before it is starved. */
export const RENEWED_LEASES_BOUND = 3;
/** Owners named in a finding's message besides the waiter. */
const NAMED = 3;

/** What the checker knows of a current hold; all this module reads of it. */
export interface HeldBy {
  readonly leaseMs: number | undefined;
  readonly client: TraceClient | undefined;
}

/** A starvation finding as the checker issues it (it adds the lock and `unsafe`). */
export type Starved = NewFinding & { readonly kind: 'starvation' };

export type IssueStarved = IssueFinding<Starved>;

interface Wait {
  readonly owner: string;
  readonly from: number;
  client: TraceClient | undefined;
  /** Owners whose new holds began during the wait, in order, and where (for the message). */
  readonly overtakers: Map<string, TraceClient | undefined>;
  /** Those holds, counted (an owner may overtake twice). */
  overtakes: number;
  /** The holders did something besides renewing (a re-entry, a partial release). */
  holderActed: boolean;
  renewals: number;
  /** The finding issued for this wait, once proven. */
  slot: number | undefined;
  /** The last proof (for an update at the free moment that ends the wait) and why it holds. */
  last: Starved | undefined;
  why: string;
}

const who = (owner: string, client: TraceClient | undefined) => `${shortOwner(owner)} (${client?.name ?? clientLabel(client)})`;

/** One lock's waiters: fed every event of the lock, before and after the checker updates its holds. */
export class StarvationWatch {
  private readonly waits = new Map<string, Wait>();

  /** No wait open: nothing to remember about the lock. */
  get idle(): boolean {
    return this.waits.size === 0;
  }

  /** Reads `e` against the holds before it: opens, proves or closes waits; counts overtakers. */
  before(e: TraceEvent, holds: ReadonlyMap<string, HeldBy>, issue: IssueStarved): void {
    const owner = e.owner;
    // Only a refusal opens a wait: with none open, nothing else has anything to count (most events).
    if (owner === undefined || (this.waits.size === 0 && e.kind !== 'refused')) return;
    const wait = this.waits.get(owner);
    switch (e.kind) {
      case 'refused':
        // Refused while holding it itself (an upgrade) is a deadlock's shape, not starvation's.
        if (holds.has(owner) || holds.size === 0) return;
        if (!wait) this.waits.set(owner, newWait(owner, e));
        else this.prove(wait, e, holds, issue, 'refused');
        return;
      case 'acquired':
      case 'reader-join':
        if (wait) {
          this.prove(wait, e, holds, issue, 'got');
          this.waits.delete(owner);
        } else if (holds.has(owner) || e.overwrite) this.holderActed(owner);
        else
          for (const w of this.waits.values()) {
            w.overtakes++;
            if (w.overtakers.size < 100) w.overtakers.set(owner, e.client);
          }
        return;
      case 'renewed':
        for (const w of this.waits.values()) if (holds.has(owner)) w.renewals++;
        return;
      case 'released':
      case 'reader-leave':
        if ((e.count ?? 0) > 0) this.holderActed(owner);
        return;
      default:
        return;
    }
  }

  /** After the checker updated its holds: a lock left free ends every wait (the waiters had their chance). */
  after(e: TraceEvent, free: boolean, issue: IssueStarved): void {
    if (!free || this.waits.size === 0) return;
    for (const w of this.waits.values())
      if (w.slot !== undefined && w.last) issue({ ...w.last, to: e.t, message: `${head(w, e, `was kept out until it came free at ${traceTime(e.t)}`)}: ${w.why}` }, w.slot);
    this.waits.clear();
  }

  private holderActed(owner: string): void {
    for (const w of this.waits.values()) if (w.owner !== owner) w.holderActed = true;
  }

  /** At the waiter's own act (a refusal, its acquisition): the evidence so far, issued when it proves starvation. */
  private prove(w: Wait, e: TraceEvent, holds: ReadonlyMap<string, HeldBy>, issue: IssueStarved, how: 'refused' | 'got'): void {
    w.client = e.client ?? w.client;
    let others: string[] = [];
    let clients: TraceClient[] = [];
    if (w.overtakes >= OVERTAKEN_BOUND) {
      others = [...w.overtakers.keys()];
      clients = others.map((o) => w.overtakers.get(o) ?? {});
      const named = others.slice(0, NAMED).map((o, i) => who(o, clients[i])).join(', ');
      w.why = `${w.overtakes} holds that began after it asked (by ${named}${others.length > NAMED ? ', …' : ''}) kept the lock held without a free moment`;
    } else if (w.overtakes === 0 && !w.holderActed && w.renewals > 0) {
      const leases = [...holds.values()].map((h) => h.leaseMs ?? Number.POSITIVE_INFINITY);
      const longest = Math.max(...leases);
      if (leases.length === 0 || !Number.isFinite(longest) || e.t - w.from <= RENEWED_LEASES_BOUND * longest) return;
      others = [...holds.keys()];
      clients = others.map((h) => holds.get(h)?.client ?? {});
      w.why = `${others.map((h, i) => who(h, clients[i])).join(', ')} did nothing on the lock but renew it (${w.renewals} renewals of a ${formatMs(longest)} lease) for more than ${RENEWED_LEASES_BOUND} leases: a hung holder whose watchdog lives on keeps everyone out`;
    } else return;
    const end = how === 'got' ? `got it at ${traceTime(e.t)}` : `was still refused at ${traceTime(e.t)}`;
    w.last = { kind: 'starvation', from: w.from, to: e.t, owners: [w.owner, ...others], clients: [w.client ?? {}, ...clients], message: `${head(w, e, end)}: ${w.why}` };
    w.slot = issue(w.last, w.slot);
  }
}

function newWait(owner: string, e: TraceEvent): Wait {
  return { owner, from: e.t, client: e.client, overtakers: new Map(), overtakes: 0, holderActed: false, renewals: 0, slot: undefined, last: undefined, why: '' };
}

/** `W (client) was refused catalog from 10:00:00.100 and got it at 10:00:02.600, 2500 ms later`. */
function head(w: Wait, e: TraceEvent, end: string): string {
  return `${who(w.owner, w.client)} was refused ${e.lock} from ${traceTime(w.from)} and ${end}, ${formatMs(e.t - w.from)} later`;
}
