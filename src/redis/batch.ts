import type { RedisClient } from './connection.js';

export type BatchArg = string | number | Buffer;

/**
 * Commands asked for in the same turn of the event loop go out as one pipeline. Reads written
 * step by step per key (read the type, then what that type holds) then cost one round trip per
 * step for all keys together, not one per key. Each command settles with its own reply or error.
 */
export class CommandBatch {
  private queue: { args: BatchArg[]; resolve: (value: unknown) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;

  constructor(private readonly client: RedisClient) {}

  call(...args: [string, ...BatchArg[]]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ args, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // setImmediate runs after the microtasks of every key's step: all of them are queued by then.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0);
    try {
      const results = (await this.client.pipeline(batch.map((b) => b.args as [string, ...BatchArg[]])).exec()) ?? [];
      batch.forEach((b, i) => {
        const [err, value] = results[i] ?? [new Error('Connection is closed'), undefined];
        if (err) b.reject(err);
        else b.resolve(value);
      });
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}
