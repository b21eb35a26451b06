import type { OutputTone } from './output.js';

// The prompt's side of the session: lines typed while a command runs wait their turn and run one
// at a time, and a question (`release and leave? [y/N]`) takes the next line as its answer.

export interface LineQueueHost {
  /** Runs one line; an error it throws is printed and the next line runs. */
  execute(line: string): Promise<void>;
  print(text: string, tone?: OutputTone): void;
  /** A line starts running; `lineDone` follows once it has finished and its error is printed. */
  lineStarted(): void;
  lineDone(): void;
  publish(): void;
  ended(): boolean;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class LineQueue {
  private pending: string[] = [];
  private busy = false;
  private question: { text: string; resolve: (answer: string) => void } | undefined;

  constructor(private readonly host: LineQueueHost) {}

  /** Lines typed ahead of the one running. */
  get queued(): number {
    return this.pending.length;
  }

  /** The question waiting for an answer, if any. */
  get asking(): string | undefined {
    return this.question?.text;
  }

  /** Queues a line and runs the queue unless it is already running. */
  enqueue(line: string): void {
    this.pending.push(line);
    this.host.publish();
    if (!this.busy) void this.drain();
  }

  /** Takes `line` as the answer to the question asked, if one is; true when it did. */
  answer(line: string): boolean {
    return this.settle(line, line.trim());
  }

  /** Ctrl-C on a question: answers it with '' (no); true when there was one. */
  cancelQuestion(): boolean {
    return this.settle('^C', '');
  }

  /** Asks on the prompt line; resolves with the answer ('' for Ctrl-C). */
  ask(text: string): Promise<string> {
    return new Promise((resolve) => {
      this.question = { text, resolve };
      this.host.publish();
    });
  }

  /** Forgets the lines typed ahead; returns how many there were. */
  drop(): number {
    const dropped = this.pending.length;
    this.pending = [];
    return dropped;
  }

  private settle(echo: string, answer: string): boolean {
    const q = this.question;
    if (!q) return false;
    this.question = undefined;
    this.host.print(`${q.text} ${echo}`, 'echo');
    q.resolve(answer);
    return true;
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.pending.length > 0 && !this.host.ended()) {
      const line = this.pending.shift()!;
      this.host.publish();
      this.host.lineStarted();
      try {
        await this.host.execute(line);
      } catch (err) {
        this.host.print(errorText(err), 'error');
      }
      this.host.lineDone();
    }
    this.busy = false;
    this.host.publish();
  }
}
