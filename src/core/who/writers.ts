import type { TraceEvent } from '../trace/events.js';
import type { RememberedWriter } from './model.js';

/**
 * What an event says a connection did with an owner id: took it (acquired, joined as a reader or
 * queued), or kept it (renewed). A SET without NX over a lock the decoder had not seen taken reads
 * as an `overwrite` acquisition; for a holder already in the lock it is a renewal (node-redlock's
 * extend is such a SET), so it counts as one: a renewer is never mistaken for the acquirer.
 */
export function wroteAs(e: TraceEvent): 'took' | 'kept' | undefined {
  if (e.kind === 'acquired') return e.overwrite ? 'kept' : 'took';
  if (e.kind === 'reader-join' || e.kind === 'queue-join') return 'took';
  return e.kind === 'renewed' ? 'kept' : undefined;
}

/** How many owners one trace keeps in memory for the owner directory (the directory keeps its own bound). */
const MAX_OWNERS = 2000;

/**
 * Collects, from a trace's events, which connection wrote each owner id: the one that acquired it
 * (or joined as a reader or queued), else the first seen renewing it when the acquisition came
 * before the trace. A renewal never replaces the acquirer: a zombie renewer must not become the holder.
 */
export class WriterCollector {
  private readonly writers = new Map<string, RememberedWriter & { readonly acquired: boolean }>();

  constructor(private readonly target: string) {}

  observe(events: readonly TraceEvent[]): void {
    for (const e of events) {
      if (e.owner === undefined || e.client?.addr === undefined) continue;
      const how = wroteAs(e);
      if (how === undefined) continue;
      const acquired = how === 'took';
      const id = JSON.stringify([e.lock, e.owner]);
      const had = this.writers.get(id);
      if (had && (had.acquired || !acquired)) continue;
      if (!had && this.writers.size >= MAX_OWNERS) this.writers.delete(this.writers.keys().next().value!);
      this.writers.set(id, { target: this.target, key: e.lock, owner: e.owner, addr: e.client.addr, name: e.client.name, at: e.t, acquired });
    }
  }

  /** What to remember, without the bookkeeping field. */
  entries(): RememberedWriter[] {
    return [...this.writers.values()].map(({ acquired: _acquired, ...writer }) => writer);
  }
}
