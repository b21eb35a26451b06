// Writes history events with the race clock and ids unique across processes: process `index`
// (0 = the parent) numbers its operations index, index + stride, index + 2 x stride, ...

import type { ClientOp, HistoryEvent, OpEvent } from '../core/scenario/history.js';
import type { RaceClock } from './clock.js';

/** Room for this many processes (workers, their replacements, the parent) in one id space. */
export const ID_STRIDE = 4096;

type OpExtra = Partial<Pick<OpEvent, 'detail' | 'token' | 'leaseMs' | 'value' | 'read' | 'accepted' | 'refusals' | 'serverWaitMs' | 'serverHoldMs'>>;

export class Recorder {
  private seq = 0;

  constructor(
    readonly clock: RaceClock,
    private readonly emit: (event: HistoryEvent) => void,
    private readonly index = 0,
  ) {}

  /** Records an invoke and returns its id for the completion. */
  invoke(client: string, op: ClientOp, extra: OpExtra = {}): number {
    const id = this.index + this.seq++ * ID_STRIDE;
    this.emit({ kind: 'op', t: this.clock(), client, op, phase: 'invoke', id, ...extra });
    return id;
  }

  done(client: string, op: ClientOp, id: number, phase: 'ok' | 'fail', extra: OpExtra = {}): void {
    this.emit({ kind: 'op', t: this.clock(), client, op, phase, id, ...extra });
  }

  /** An operation that takes no time (enter, leave, crash): invoke and ok at the same instant. */
  instant(client: string, op: ClientOp, extra: OpExtra = {}): void {
    const id = this.index + this.seq++ * ID_STRIDE;
    const t = this.clock();
    this.emit({ kind: 'op', t, client, op, phase: 'invoke', id });
    this.emit({ kind: 'op', t, client, op, phase: 'ok', id, ...extra });
  }

  note(lane: string, text: string): void {
    this.emit({ kind: 'note', t: this.clock(), lane, text });
  }

  lockLost(client: string, reason: string): void {
    this.emit({ kind: 'lock-lost', t: this.clock(), client, reason });
  }

  /** A sandbox or client fault: invoke now; call the returned function when it completes. */
  fault(node: string, verb: string, detail?: string): (phase: 'ok' | 'fail', detail?: string) => void {
    const id = this.index + this.seq++ * ID_STRIDE;
    this.emit({ kind: 'fault', t: this.clock(), node, verb, phase: 'invoke', id, ...(detail ? { detail } : {}) });
    return (phase, end) => this.emit({ kind: 'fault', t: this.clock(), node, verb, phase, id, ...(end ? { detail: end } : {}) });
  }
}
