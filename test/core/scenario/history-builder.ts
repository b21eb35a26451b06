// A tiny builder so each checker test reads like the timeline it describes:
//   history('A', 'B').hold('A', 0, 500).section('A', 100, 400).build()
// Ops get unique ids; build() orders events by time, ties in the order they were added.

import type { ClientOp, EndEvent, History, HistoryEvent, OpEvent } from '../../../src/core/scenario/history.js';

type Fields = Partial<Pick<OpEvent, 'detail' | 'token' | 'leaseMs' | 'value' | 'read' | 'accepted' | 'held' | 'shared'>>;

export class HistoryBuilder {
  private readonly events: HistoryEvent[] = [];
  private nextId = 1;

  constructor(private readonly clients: readonly string[]) {}

  /** invoke at `from`, ok at `to`; fields go on the ok (and `shared` on the invoke too). */
  ok(client: string, op: ClientOp, from: number, to: number, fields: Fields = {}): this {
    return this.pair(client, op, from, to, 'ok', fields);
  }

  /** invoke at `from`, fail at `to`. */
  fail(client: string, op: ClientOp, from: number, to: number, fields: Fields = {}): this {
    return this.pair(client, op, from, to, 'fail', fields);
  }

  /** An invoke that never completes. */
  open(client: string, op: ClientOp, at: number, fields: Fields = {}): this {
    this.events.push(this.op(client, op, at, 'invoke', this.nextId++, fields));
    return this;
  }

  /** acquire ok at `from` (instant), release invoked at `to` and ok 1 ms later. */
  hold(client: string, from: number, to: number, fields: Fields = {}): this {
    return this.ok(client, 'acquire', from, from, fields).ok(client, 'release', to, to + 1);
  }

  /** enter ok at `from`, leave ok at `to` (both instant). */
  section(client: string, from: number, to: number): this {
    return this.ok(client, 'enter', from, from).ok(client, 'leave', to, to);
  }

  crash(client: string, at: number): this {
    return this.ok(client, 'crash', at, at);
  }

  server(t: number, holders: readonly string[], node = 'n1', ttlMs = 1000): this {
    this.events.push({ kind: 'server', t, node, holders, ttlMs });
    return this;
  }

  note(t: number, lane: string, text: string): this {
    this.events.push({ kind: 'note', t, lane, text });
    return this;
  }

  end(t: number, counter = 0, register: EndEvent['register'] = {}): this {
    this.events.push({ kind: 'end', t, counter, register });
    return this;
  }

  build(): History {
    const events = this.events.map((e, i) => ({ e, i })).sort((a, b) => a.e.t - b.e.t || a.i - b.i);
    return { clients: this.clients, nodes: ['n1'], events: events.map(({ e }) => e) };
  }

  private pair(client: string, op: ClientOp, from: number, to: number, phase: 'ok' | 'fail', fields: Fields): this {
    const id = this.nextId++;
    const invoke = fields.shared === undefined ? {} : { shared: fields.shared };
    this.events.push(this.op(client, op, from, 'invoke', id, invoke), this.op(client, op, to, phase, id, fields));
    return this;
  }

  private op(client: string, op: ClientOp, t: number, phase: OpEvent['phase'], id: number, fields: Fields): OpEvent {
    return { kind: 'op', t, client, op, phase, id, ...fields };
  }
}

/** Starts a history of these clients. */
export function history(...clients: string[]): HistoryBuilder {
  return new HistoryBuilder(clients);
}
