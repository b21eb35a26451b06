import { EventEmitter } from 'node:events';

// A terminal for commands run in-process through run(): an output stream that records what was
// written (a TTY or a pipe), and a keyboard as ink reads it.

/** An output stream that keeps what was written; `isTTY` makes it a terminal. */
export class Sink extends EventEmitter {
  text = '';
  readonly columns = 100;
  constructor(readonly isTTY = false) {
    super();
  }
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
  lines(): string[] {
    return this.text.split('\n').filter(Boolean);
  }
}

/** A terminal's keyboard as ink reads it: raw mode, 'readable' events, read(). */
export class Keyboard extends EventEmitter {
  readonly isTTY = true;
  private pending: string[] = [];
  press(key: string): void {
    this.pending.push(key);
    this.emit('readable');
  }
  read(): string | null {
    return this.pending.shift() ?? null;
  }
  setEncoding(): void {}
  setRawMode(): void {}
  ref(): void {}
  unref(): void {}
  resume(): void {}
  pause(): void {}
}
