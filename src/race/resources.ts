// The race's demo resources, one per key: the scenario runner's DemoResource (a fenced register
// and an unprotected counter, kept in this process so no Redis fault can roll it back), plus a
// count of the writes fencing refused.

import type { RaceKind } from '../core/race/plan.js';
import { DemoResource } from '../core/demo-resource.js';
import type { ResourcePort } from './client.js';
import type { ResourceRequest } from './ipc.js';

export class RaceResources {
  private readonly byKey = new Map<string, DemoResource>();
  private readonly rejected = new Map<string, number>();

  /** Fenced locks get a register that checks tokens like Redisson's (greater or equal); others none. */
  constructor(keys: readonly string[], kind: RaceKind) {
    for (const key of keys) this.byKey.set(key, new DemoResource({ fencing: kind === 'fenced' ? 'at-least' : 'off' }));
  }

  private of(key: string): DemoResource {
    const r = this.byKey.get(key);
    if (!r) throw new Error(`no demo resource for key ${key}`);
    return r;
  }

  read(key: string): number {
    return this.of(key).readCounter();
  }

  set(key: string, value: number): void {
    this.of(key).writeCounter(value);
  }

  write(key: string, writer: string, token: number | undefined, value: number): boolean {
    const { accepted } = this.of(key).write(writer, value, token);
    if (!accepted) this.rejected.set(key, (this.rejected.get(key) ?? 0) + 1);
    return accepted;
  }

  /** The end event's counter and register, and how many writes fencing refused. */
  final(key: string): ReturnType<DemoResource['snapshot']> & { readonly rejected: number } {
    return { ...this.of(key).snapshot(), rejected: this.rejected.get(key) ?? 0 };
  }

  /** Answers a worker's request (IPC). */
  answer(req: ResourceRequest): number | boolean {
    if (req.op === 'read') return this.read(req.key);
    if (req.op === 'set') {
      this.set(req.key, req.value);
      return true;
    }
    return this.write(req.key, req.writer, req.token, req.value);
  }

  /** The same, for clients in this process (as promises, like over IPC). */
  port(): ResourcePort {
    return {
      read: async (key) => this.read(key),
      set: async (key, value) => this.set(key, value),
      write: async (key, writer, token, value) => this.write(key, writer, token, value),
    };
  }
}
