import type { Socket } from 'node:net';

/** What one direction of a proxied connection does with the bytes it reads. */
export interface PipeState {
  /** Extra delay for every chunk read from now on (ms, 0 = forward at once). */
  readonly delayMs: number;
  /** Held: keep what was read, forward nothing until released. */
  readonly held: boolean;
}

type Item = { readonly due: number; readonly chunk: Buffer | 'end' };

/**
 * One direction of a proxied connection (client -> node or node -> client). Every chunk is
 * stamped with its due time when it is read and leaves strictly in order, so lowering the delay
 * or releasing a hold never lets later bytes overtake earlier ones (RESP would be corrupted).
 * The FIN is queued like data: a client that sends a command and closes still gets it delivered.
 */
export class Pipe {
  private readonly queue: Item[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private state: () => PipeState,
  ) {
    from.on('data', (chunk: Buffer) => this.push(chunk));
    from.on('end', () => this.push('end'));
  }

  /** Re-reads the state after a mode change: pauses the source while held, drains otherwise. */
  update(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.state().held) {
      // Let TCP back-pressure hold the rest in kernel buffers instead of growing our queue.
      this.from.pause();
      return;
    }
    this.from.resume();
    this.drain();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }

  private push(chunk: Buffer | 'end'): void {
    const { delayMs, held } = this.state();
    if (!held && delayMs === 0 && this.queue.length === 0) {
      // Pass mode fast path: no timer, no copy.
      this.forward(chunk);
      return;
    }
    this.queue.push({ due: performance.now() + delayMs, chunk });
    if (!held && this.timer === undefined) this.drain();
  }

  private drain(): void {
    this.timer = undefined;
    if (this.state().held) return;
    const now = performance.now();
    while (this.queue.length > 0 && this.queue[0]!.due <= now) this.forward(this.queue.shift()!.chunk);
    const head = this.queue[0];
    // setTimeout rounds down to whole ms and may fire early by a fraction: ceil keeps us on time.
    if (head) this.timer = setTimeout(() => this.drain(), Math.max(0, Math.ceil(head.due - now)));
  }

  private forward(chunk: Buffer | 'end'): void {
    if (this.to.destroyed) return;
    if (chunk === 'end') this.to.end();
    else this.to.write(chunk);
  }
}
