import type { MonitorLine } from './monitor-line.js';

// A trace fence: a read-only `ECHO redlock-cli:trace-fence:<n>` the live trace sends to the node it
// follows when it needs to know that every line before now has arrived. Redis runs one command at
// a time and a script whole, so the fence's own MONITOR line comes after every line of every
// script that ran before it, and its timestamp is a server time up to which the stream is
// complete. Fence lines are the trace's own bookkeeping, never traffic: every decoder skips them,
// also in a log another MONITOR saved while a trace was running.

const PREFIX = 'redlock-cli:trace-fence:';

/** The command that asks for fence `n`. */
export function fenceCommand(n: number): string[] {
  return ['ECHO', `${PREFIX}${n}`];
}

/** Which fence a line is (its number), or undefined when the line is not a fence. */
export function fenceNumber(line: MonitorLine): number | undefined {
  // Runs for every line: the cheap tests first.
  if (line.args.length !== 2) return undefined;
  const text = line.args[1]!;
  if (!text.startsWith(PREFIX) || line.args[0]!.toLowerCase() !== 'echo') return undefined;
  const n = Number(text.slice(PREFIX.length));
  return Number.isSafeInteger(n) ? n : undefined;
}
