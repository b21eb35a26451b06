/** The demo resource every client writes to inside its critical section. */
export interface ResourceOptions {
  /**
   * `off`: the register accepts every write (no fencing). `strict`: accepts a token only if greater than the
   * highest accepted. `at-least`: greater or equal (Redisson's reentrant acquisitions increment too).
   */
  readonly fencing: 'off' | 'strict' | 'at-least';
}

/** What the fenced register did with one write. */
export interface WriteResult {
  readonly accepted: boolean;
  /** Why a write was rejected, in words for the timeline. */
  readonly reason?: string;
}

/**
 * The demo resource the clients protect: the storage behind the lock. It lives in the runner
 * process, not in Redis, so it survives every Redis fault (a failover must not roll it back).
 * A register checks fencing tokens as configured; a counter is read and written separately so
 * that increments whose read..write gaps overlap lose updates, as on any unprotected store.
 */
export class DemoResource {
  private value: number | undefined;
  private writer: string | undefined;
  private writerToken: number | undefined;
  /** The highest token the register accepted (fencing compares against this). */
  private highest: number | undefined;
  private count = 0;

  constructor(private readonly options: ResourceOptions) {}

  /** A write to the register, carrying the writer's fencing token if it has one. */
  write(client: string, value: number, token: number | undefined): WriteResult {
    const { fencing } = this.options;
    if (fencing !== 'off') {
      if (token === undefined) return { accepted: false, reason: 'no fencing token' };
      if (this.highest !== undefined) {
        const stale = fencing === 'strict' ? token <= this.highest : token < this.highest;
        if (stale) return { accepted: false, reason: `token ${token} ${fencing === 'strict' ? '<=' : '<'} ${this.highest} seen` };
      }
    }
    this.value = value;
    this.writer = client;
    this.writerToken = token;
    if (token !== undefined && (this.highest === undefined || token > this.highest)) this.highest = token;
    return { accepted: true };
  }

  readCounter(): number {
    return this.count;
  }

  writeCounter(value: number): void {
    this.count = value;
  }

  /** The state the end event reports. */
  snapshot(): { counter: number; register: { value?: number; writer?: string; token?: number } } {
    return {
      counter: this.count,
      register: {
        ...(this.value !== undefined ? { value: this.value } : {}),
        ...(this.writer !== undefined ? { writer: this.writer } : {}),
        ...(this.writerToken !== undefined ? { token: this.writerToken } : {}),
      },
    };
  }
}
