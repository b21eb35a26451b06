// What a command did, as data: commands report it through `ctx.emit` at the point they succeed,
// next to what they print. The CLI host prints and ignores these; the REPL host folds them into
// its state (what its clients hold, the sandboxes it started), so it never has to read another
// command's printed text, re-read a state file or guess from argv what just happened.

import type { HoldEvent } from './hold-events.js';
import type { LockKind } from './lock-kind.js';
import type { WhoReport } from './who/model.js';

/** Where a lock lives, as the owner memory names it: `127.0.0.1:6379`, `redlock 127.0.0.1:7001,...`. */
type LockTargetName = string;

interface LockFacts {
  readonly key: string;
  readonly kind: LockKind;
  readonly owner: string;
  readonly target: LockTargetName;
  /** Epoch ms, when the command saw it happen. */
  readonly at: number;
}

export type CommandOutcome =
  | ({ readonly type: 'lock-acquired'; readonly leaseMs: number } & LockFacts)
  /** `gone`: this owner holds it no more (its last re-entrant hold, or --all-holds). */
  | ({ readonly type: 'lock-released'; readonly gone: boolean } & LockFacts)
  | ({ readonly type: 'lock-renewed'; readonly leaseMs: number } & LockFacts)
  | {
      readonly type: 'lock-force-unlocked';
      readonly key: string;
      readonly kind: LockKind;
      readonly target: LockTargetName;
      readonly at: number;
    }
  /** One event of `hold`, as its event lines and NDJSON tell it. */
  | {
      readonly type: 'hold-event';
      readonly key: string;
      readonly kind: LockKind;
      readonly owner: string;
      readonly target: LockTargetName;
      readonly event: HoldEvent;
    }
  /** `who`'s report, for the REPL's panel. */
  | { readonly type: 'who-report'; readonly target: LockTargetName; readonly report: WhoReport }
  | { readonly type: 'sandbox-up'; readonly name: string; readonly topology: string }
  | { readonly type: 'sandbox-down'; readonly name: string };

export type CommandOutcomeType = CommandOutcome['type'];
