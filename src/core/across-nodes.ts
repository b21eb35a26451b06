// Redlock keeps one copy of a lock on each independent primary: what inspect, ls, release and
// renew show for --nodes is which nodes hold a copy, with its value and TTL there. Pure: the
// reading is in inspect/across-nodes.ts.

import { printable } from './decode/escape.js';
import { formatDuration } from './duration.js';

export interface NodeCopy {
  /** host:port of the node. */
  readonly node: string;
  readonly state: 'holds' | 'absent' | 'unreachable';
  /** The stored token (or holder) there. */
  readonly value?: string | undefined;
  /** ms left there, -1 for none. */
  readonly ttlMs?: number | undefined;
  readonly error?: string | undefined;
}

export interface AcrossNodes {
  readonly key: string;
  readonly copies: readonly NodeCopy[];
  /** Nodes holding a copy. */
  readonly held: number;
  /** The majority Redlock needs. */
  readonly quorum: number;
}

/** The key's copies, counted against the majority (locks/redlock-nodes.ts quorumOf). */
export function acrossNodes(key: string, copies: readonly NodeCopy[], quorum: number): AcrossNodes {
  return { key, copies, held: copies.filter((c) => c.state === 'holds').length, quorum };
}

/** Copies that differ from the majority value are a split lock: worth saying. */
function headline(a: AcrossNodes): string {
  const values = new Set(a.copies.filter((c) => c.state === 'holds').map((c) => c.value));
  const split = values.size > 1 ? ', different values: more than one holder' : '';
  const verdict = a.held >= a.quorum ? 'a majority holds it' : a.held === 0 ? 'not locked' : 'no majority';
  return `${printable(a.key)}  on ${a.held} of ${a.copies.length} nodes (${verdict}, quorum ${a.quorum})${split}`;
}

/** A headline, then one line per node: its value and TTL, "no copy", or why it was not read. */
export function formatAcrossNodes(a: AcrossNodes): string[] {
  const width = Math.max(...a.copies.map((c) => c.node.length));
  return [
    headline(a),
    ...a.copies.map((c) => {
      const what =
        c.state === 'holds'
          ? `${printable(c.value ?? '?')}  ${c.ttlMs !== undefined && c.ttlMs >= 0 ? `TTL ${formatDuration(c.ttlMs)}` : 'no TTL'}`
          : c.state === 'absent'
            ? 'no copy'
            : `not read: ${c.error ?? 'unreachable'}`;
      return `  ${c.node.padEnd(width)}  ${what}`;
    }),
  ];
}
