import type { Endpoint } from '../core/endpoint.js';
import type { CommandOutcome } from '../core/outcomes.js';
import type { RedissonOwner } from '../core/owner.js';
import type { ConnectionProvider } from '../redis/connection.js';
import { safeJson, safeLine } from '../core/terminal-text.js';

/** Streams and environment a command runs with: the real process, a test, or the REPL. */
export interface OutputStream {
  /** false: the text was queued in memory (a pipe the reader empties slower), wait for `drain`. */
  write(text: string): unknown;
  /** A stream's `drain` event; absent where writes never queue (a test's capture). */
  once?(event: 'drain', listener: () => void): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

/** The host's target: its endpoint and, for a Redlock sandbox, the nodes lock commands use. */
export interface HostTarget {
  readonly endpoint: Endpoint;
  readonly redlockNodes?: readonly Endpoint[] | undefined;
  /** The attached sandbox's name, when the target is one (race needs no confirmation there). */
  readonly sandbox?: string | undefined;
}

export interface RunContext {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin?: (NodeJS.ReadableStream & { readonly isTTY?: boolean | undefined }) | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C / SIGTERM: waiting stops, held locks are released. */
  readonly signal?: AbortSignal | undefined;
  /**
   * After the first signal the launcher ends the process within a grace period, whatever is still
   * pending; a command whose orderly stop takes longer (hold's --kill-grace) extends it here.
   */
  readonly interruptGrace?: { extend(ms: number): void } | undefined;
  /** Where lock commands get their connections (the REPL's per-client pool); default: connect anew. */
  readonly connections?: ConnectionProvider | undefined;
  /** The client lock commands act as when no --owner is given (a REPL client); default: a fresh owner. */
  readonly identity?: RedissonOwner | undefined;
  /**
   * Told what a command did, as it succeeds (a lock taken, a sandbox started): the REPL folds it
   * into its state. The CLI passes none: what a command prints is the same either way.
   */
  readonly emit?: ((outcome: CommandOutcome) => void) | undefined;
  /**
   * Where commands connect when their line names no connection of its own (the REPL's current
   * target): an endpoint, resolved by the host, never words added to the command line.
   */
  readonly target?: HostTarget | undefined;
  /** The host shows `hold`'s events itself, from `emit` (the REPL): hold prints only its command's output. */
  readonly hostShowsHoldEvents?: boolean | undefined;
}

// The text boundary of every command: a key or holder a formatter forgot to escape is escaped here
// (terminal-text.ts), in the CLI and in the REPL alike; colour codes (SGR) pass.
export const print = (ctx: RunContext, line: string): void => void ctx.stdout.write(`${safeLine(line)}\n`);

/** The width a table is fitted to: the terminal's; none in a pipe, where cells stay whole for grep and awk. */
export const tableWidth = (ctx: RunContext): number | undefined => (ctx.stdout.isTTY === true ? (ctx.stdout.columns ?? 80) : undefined);
export const note = (ctx: RunContext, line: string): void => void ctx.stderr.write(`${safeLine(line)}\n`);
export const printJson = (ctx: RunContext, value: unknown): void => void ctx.stdout.write(`${safeJson(JSON.stringify(value))}\n`);

/** A RunContext inside one run(): actions report their exit code here (commander discards return values). */
export interface CommandContext extends RunContext {
  exitCode: number;
  /** --no-color was given: plain output whatever the streams are. */
  noColor?: boolean;
  /** The line asked for --json: an error is printed as one JSON object (docs/json/error.schema.json). */
  readonly jsonErrors?: boolean;
}

/** Wraps an action so its returned exit code reaches run(). */
export function act<A extends unknown[]>(ctx: CommandContext, fn: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    ctx.exitCode = await fn(...args);
  };
}
