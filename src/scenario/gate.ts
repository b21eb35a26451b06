// A client's pause and death. A paused client (GC pause, SIGSTOP) runs none of its own code:
// its steps wait, its watchdog sends nothing, and replies that arrive meanwhile are handled only
// once the pause ends. Implemented by gating the client's promise chain, never the event loop, so
// the other clients, the observer and the faults keep running.

import { sleep } from '../core/sleep.js';
import type { TimerReport } from './timing-probe.js';

/** Thrown into a crashed client's code wherever it next resumes. */
export class CrashedError extends Error {
  constructor(client: string) {
    super(`${client} crashed`);
  }
}

export class Gate {
  private openAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private deadFlag = false;

  /** `onTimer`: each of its timers' planned and actual delay (the run's timing probe). */
  constructor(
    private readonly client: string,
    private readonly onTimer?: TimerReport,
  ) {}

  get paused(): boolean {
    return this.timer !== undefined;
  }

  get dead(): boolean {
    return this.deadFlag;
  }

  /** Closes the gate for `realMs` from now (a pause inside a pause extends it); resolves when it reopens. */
  pause(realMs: number): Promise<void> {
    const until = performance.now() + realMs;
    if (until > this.openAt) {
      this.openAt = until;
      clearTimeout(this.timer);
      const set = performance.now();
      this.timer = setTimeout(() => {
        this.onTimer?.(`${this.client}'s pause`, realMs, performance.now() - set);
        this.open();
      }, realMs);
    }
    return this.wait();
  }

  /** Resolves when the gate is open (at once if it is); a crash resolves it too. */
  wait(): Promise<void> {
    if (this.timer === undefined || this.deadFlag) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The client's view of `work`: settled, then held until the gate is open; throws once the client is dead. */
  async after<T>(work: Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await work;
    } catch (err) {
      await this.wait();
      this.check();
      throw err;
    }
    await this.wait();
    this.check();
    return value;
  }

  /** Throws CrashedError when the client is dead. */
  check(): void {
    if (this.deadFlag) throw new CrashedError(this.client);
  }

  /** Client-time sleep: the wall-clock sleep, then whatever is left of a pause (Thread.sleep under a GC pause). */
  async sleep(realMs: number, signal?: AbortSignal): Promise<void> {
    if (!signal?.aborted) {
      const set = performance.now();
      await sleep(realMs, signal);
      // How late the timer came (a busy machine), for a timer that ran out rather than an abort.
      if (!signal?.aborted) this.onTimer?.(`${this.client}'s wait`, Math.max(0, realMs), performance.now() - set);
    }
    await this.wait();
    this.check();
  }

  /** The client died: every waiter wakes (and then throws through check()). */
  kill(): void {
    this.deadFlag = true;
    this.open();
  }

  /** Opens the gate now and forgets pending timers (end of run). */
  open(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.openAt = 0;
    for (const w of this.waiters.splice(0)) w();
  }
}
