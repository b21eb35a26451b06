// Steps a fault was not meant to catch. The timetable puts a client's quick steps (an acquire
// without a wait, an enter, a write) before a fault so that they are done when it begins: the
// race is about what the fault does to a client that holds the lock. On a busy machine such a
// step can still be in flight when the fault starts (A's acquire cut off by its partition, so A
// never held the lock the race is about), and the run would be judged on a race that did not
// happen. A step still unanswered when a fault that reaches its client begins is lateness, from
// its own time to the fault's, as the timing probe counts it.

import type { ClientStep } from './model.js';
import type { TimingProbe } from './timing-probe.js';
import type { RunClock } from './clock.js';

interface Tracked {
  readonly what: string;
  readonly due: number;
  /** Waits by design (an acquire with a wait, a gap, a resend timeout): what follows it waits too. */
  readonly blocking: boolean;
  done: boolean;
}

/** Whether a step takes time by design: the steps queued behind it are not late when a fault meets them. */
function blocksByDesign(step: ClientStep): boolean {
  const s = step as { readonly waitMs?: number; readonly gapMs?: number; readonly timeoutMs?: number };
  return (s.waitMs ?? 0) > 0 || (s.gapMs ?? 0) > 0 || s.timeoutMs !== undefined;
}

export class UnfinishedSteps {
  private readonly steps = new Map<string, Tracked[]>();

  constructor(
    private readonly probe: TimingProbe,
    private readonly clock: RunClock,
  ) {}

  /** A queued client step, due at `due`, settled when `work` settles; once a fault reached its client, it runs under it on purpose. */
  track(step: ClientStep, what: string, due: number, work: Promise<unknown>): void {
    if (this.probe.disturbed(step.client)) return;
    const tracked: Tracked = { what, due, blocking: blocksByDesign(step), done: false };
    const list = this.steps.get(step.client) ?? [];
    list.push(tracked);
    this.steps.set(step.client, list);
    const settle = (): void => void (tracked.done = true);
    void work.then(settle, settle);
  }

  /**
   * A fault begins (`what`) for `client`, or for every client: each of their steps still
   * unanswered counts as late, unless it waits behind a step that blocks by design or the client
   * is paused (a paused client's steps wait by design).
   */
  fault(what: string, client: string | undefined, isPaused: (client: string) => boolean): void {
    const now = this.clock.now();
    for (const [name, list] of this.steps) {
      if ((client !== undefined && name !== client) || isPaused(name)) continue;
      for (const t of list) {
        if (t.done) continue;
        if (t.blocking) break;
        this.probe.add(`${t.what}, still unanswered when ${what} began,`, t.due, now, 'machine');
        break;
      }
    }
    this.probe.disturb(client);
  }
}
