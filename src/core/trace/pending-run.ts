// A script run the decoder (decoder.ts) has seen start (EVAL / EVALSHA / FCALL) and is still
// collecting the commands of (MONITOR's `lua` lines).

import type { ScriptRun } from './effect-context.js';
import type { TraceClient } from './events.js';
import type { MonitorLine } from './monitor-line.js';
import type { ScriptIntent } from './script-intent.js';

/** Shared and never written to: the commands of a run that ran none (a NOSCRIPT reply). */
export const NO_LINES: readonly MonitorLine[] = [];

/**
 * A script run still collecting its `lua` lines; its time is its EVAL line's. It is handed to the
 * effects as it is, once complete: one object per run (this runs for every script run of a log).
 */
export class PendingRun implements ScriptRun {
  /** Its `lua` lines, set when the run is complete (gathered meanwhile by the decoder: see luaLines). */
  lua: readonly MonitorLine[] = NO_LINES;
  readonly t: number;

  constructor(
    readonly line: MonitorLine,
    readonly client: TraceClient,
    public intent: ScriptIntent,
    readonly keys: readonly string[],
    readonly argv: readonly string[],
    /** An EVAL's body shortened, as a raw event shows it (undefined: EVALSHA / FCALL, shown as sent). */
    private readonly shownBody: string | undefined,
    /** An EVALSHA whose body neither the stream nor the catalogue has: its purpose is read from its commands. */
    readonly unknownSha: string | undefined,
  ) {
    this.t = line.t;
  }

  /** The command as sent, the body shortened: built only for the rare event that shows it. */
  get command(): readonly string[] {
    const { args } = this.line;
    const head = this.shownBody !== undefined ? ['EVAL', this.shownBody] : [args[0]!.toUpperCase(), args[1]!];
    return [...head, ...args.slice(2)];
  }

  /** The same run again, without its `lua` lines yet: more are coming after flush() closed it early. */
  reopened(): PendingRun {
    return new PendingRun(this.line, this.client, this.intent, this.keys, this.argv, this.shownBody, this.unknownSha);
  }
}
