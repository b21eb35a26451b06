// A terminal for live views mounted through mountLive (ink's real renderer, not the testing
// library's debug mode, which draws every commit and so cannot show ink's frame limit): it keeps
// what was written and counts the frames drawn.
import { EventEmitter } from 'node:events';

const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** One frame per 10 s: every frame drawn in a test's few milliseconds past the first broke the limit. */
export const SLOW_FPS = 0.1;

export class CountingTerminal extends EventEmitter {
  readonly isTTY = true;
  readonly rows = 60;
  text = '';
  /** Writes that draw text (ink also writes bare escape codes around each frame). */
  frames = 0;
  constructor(readonly columns = 100) {
    super();
  }
  write(chunk: string): boolean {
    this.text += chunk;
    if (chunk.replace(ESCAPES, '').trim() !== '') this.frames++;
    return true;
  }
  /** Every line written, escape codes aside. */
  lines(): string[] {
    return this.text
      .replace(ESCAPES, '')
      .split('\n')
      .map((l) => l.trimEnd());
  }
  /** How many times `line` was written as a whole line. */
  count(line: string): number {
    return this.lines().filter((l) => l === line).length;
  }
}

/** Lets React commit what was just sent and ink draw it: one turn of the event loop. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
