import type { OutputStream } from '../commands/context.js';

/** How an output line reads: a command's result, its messages, the REPL's own voice, or an echo of what was typed. */
export type OutputTone = 'result' | 'message' | 'error' | 'repl' | 'echo' | 'event';

/** One line in the output area (ink <Static>: printed once, scrolls up). */
export interface OutputLine {
  readonly id: number;
  readonly text: string;
  readonly tone: OutputTone;
}

/** A command's stdout or stderr inside the REPL: whole lines go to `emit`, a partial one waits for its newline. */
export interface LineStream extends OutputStream {
  /** Emits what is left without a newline (the command has finished). */
  flush(): void;
}

export function lineStream(emit: (text: string) => void, columns: () => number): LineStream {
  let pending = '';
  return {
    // Not a terminal: commands print plain lines and never start a live view of their own inside ours.
    isTTY: false,
    get columns() {
      return columns();
    },
    write(text: string) {
      const parts = (pending + text).split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) emit(line.replace(/\r$/, ''));
      return true;
    },
    flush() {
      if (pending !== '') emit(pending);
      pending = '';
    },
  };
}
