import type { OutputStream } from '../commands/context.js';

export type { OutputLine, OutputTone } from '../ui/repl-screen.js';

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
