import type { ClientOp, FaultEvent, HistoryEvent, LockLostEvent, NoteEvent, OpEvent, RenewedEvent } from '../core/scenario/history.js';
import type { RunClock } from './clock.js';

type OpExtra = Omit<OpEvent, 'kind' | 't' | 'client' | 'op' | 'phase' | 'id'>;
type FaultExtra = Pick<FaultEvent, 'detail'>;
/** An event before it is stamped with its time. */
export type Unstamped<E> = E extends unknown ? Omit<E, 't'> : never;

/** An operation in flight: its completion is recorded once (the first of ok / fail wins). */
export interface OpRecord {
  readonly id: number;
  ok(extra?: OpExtra): void;
  fail(extra?: OpExtra): void;
}

/**
 * Appends history events as they happen, stamped with the run clock, and hands each to the live
 * listener. Times come from one monotonic clock at recording time, so the list is in time order.
 */
export class Recorder {
  readonly events: HistoryEvent[] = [];
  private nextId = 1;
  /** Set at the end of a run: late completions (a command failing as its connection closes) are dropped. */
  private closed = false;

  constructor(
    readonly clock: RunClock,
    private readonly onEvent?: (e: HistoryEvent) => void,
  ) {}

  /** Records an event with the current time; returns it. */
  push<E extends HistoryEvent>(event: Unstamped<E>): E {
    const e = { ...event, t: this.clock.now() } as unknown as E;
    if (this.closed) return e;
    this.events.push(e);
    this.onEvent?.(e);
    return e;
  }

  /** Records an op invoke now; complete it through the returned handle. */
  op(client: string, op: ClientOp, extra: OpExtra = {}): OpRecord {
    const id = this.nextId++;
    this.push<OpEvent>({ kind: 'op', client, op, phase: 'invoke', id, ...extra });
    let done = false;
    const complete = (phase: 'ok' | 'fail') => (more: OpExtra = {}) => {
      if (done) return;
      done = true;
      this.push<OpEvent>({ kind: 'op', client, op, phase, id, ...more });
    };
    return { id, ok: complete('ok'), fail: complete('fail') };
  }

  /** Records a fault invoke now; complete it through the returned functions. */
  fault(node: string, verb: string, extra: FaultExtra = {}): { ok(extra?: FaultExtra): void; fail(extra?: FaultExtra): void } {
    const id = this.nextId++;
    this.push<FaultEvent>({ kind: 'fault', node, verb, phase: 'invoke', id, ...extra });
    return {
      ok: (more = {}) => void this.push<FaultEvent>({ kind: 'fault', node, verb, phase: 'ok', id, ...more }),
      fail: (more = {}) => void this.push<FaultEvent>({ kind: 'fault', node, verb, phase: 'fail', id, ...more }),
    };
  }

  note(lane: string, text: string): void {
    this.push<NoteEvent>({ kind: 'note', lane, text });
  }

  lockLost(client: string, reason: string): void {
    this.push<LockLostEvent>({ kind: 'lock-lost', client, reason });
  }

  renewed(client: string, renewals: number): void {
    this.push<RenewedEvent>({ kind: 'renewed', client, renewals });
  }

  close(): void {
    this.closed = true;
  }
}
