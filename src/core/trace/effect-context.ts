// What every effect of a decoded command or script works through: the lock model, the pattern,
// the one place events go (with the operation's time, client and node filled in), and a script run as
// the decoder hands it over.

import type { TraceClient, TraceEvent } from './events.js';
import type { LockModel } from './lock-model.js';
import type { MonitorLine } from './monitor-line.js';
import type { ScriptIntent } from './script-intent.js';
import type { ServerCommands } from './server-commands.js';

/** An event as an effect hands it over: emit fills in the time and client when absent, and the node. */
export type EmittedEvent = Omit<TraceEvent, 't' | 'node'> & { readonly t?: number };
/** One being built field by field, in the order it is written: an optional field is added, not spread in. */
export type EventDraft = { -readonly [K in keyof EmittedEvent]: EmittedEvent[K] };

/** Where decoded events go, with the run's time, client and node filled in. */
export interface EffectContext {
  readonly model: LockModel;
  readonly wants: (lock: string) => boolean;
  /** The conditional writes the server has; undefined: not known (a saved MONITOR log). */
  readonly commands?: ServerCommands | undefined;
  emit(event: EmittedEvent): void;
}

/** One EVAL / EVALSHA / FCALL and the commands the script ran, in the server's order. */
export interface ScriptRun {
  readonly t: number;
  readonly client: TraceClient;
  readonly intent: ScriptIntent;
  readonly keys: readonly string[];
  readonly argv: readonly string[];
  /** The EVAL / EVALSHA as sent (body shortened), for raw events. */
  readonly command: readonly string[];
  readonly lua: readonly MonitorLine[];
}
