import type { HistoryEvent } from '../core/scenario/history.js';
import type { VariantRun } from '../core/scenario/run.js';
import type { ViolationKind } from '../core/scenario/verdict.js';

// `scenario run` feeds this store from the runner's onEvent callback. Events can come in bursts of
// hundreds a second (watchdog renewals, server reads); the store folds each at once but tells the
// view at most every `repaintMs`, whatever the rate. Like hold-store, it lives outside React:
// events may arrive before ink has mounted.

/**
 * The live view's cadence (ms), for its cursor and its events alike: 4 frames a second, as the race
 * and trace views. The view shares its event loop with the race it draws, whose steps and replies
 * must keep within a tolerance of ~80 ms; a frame costs a few ms of CPU on an idle machine and many
 * times that on a busy one, and at the 10-30 frames a second this view once drew, its frames alone
 * made a loaded machine's runs inconclusive far more often than the same runs without the view.
 */
export const SCENARIO_REPAINT_MS = 250;

/** What the view needs before a variant's first event: its lanes and what it should find. */
export interface VariantStart {
  readonly variant: string;
  readonly description: string;
  readonly expected: readonly ViolationKind[];
  readonly clients: readonly string[];
  readonly nodes: readonly string[];
  /** How long the variant should run (last step + settle): the axis spans this from the start. */
  readonly expectedMs?: number;
}

export interface LiveVariant extends VariantStart {
  readonly events: readonly HistoryEvent[];
  /** Store clock when the variant started: the cursor moves from here. */
  readonly startedAt: number;
  /** Set once the runner and the checker are done with it. */
  readonly result?: VariantRun;
}

export interface ScenarioScreen {
  readonly name: string;
  readonly title: string;
  /** Variants the run will have, if known (for "variant 2/3"). */
  readonly variantCount?: number;
  readonly variants: readonly LiveVariant[];
  readonly finished: boolean;
}

export interface ScenarioRunStore {
  startVariant(start: VariantStart): void;
  /** The variant started last runs again (its timing was inconclusive): its lanes start over. */
  restartVariant(): void;
  /** The runner's onEvent: an event of the variant started last. */
  event(e: HistoryEvent): void;
  finishVariant(run: VariantRun): void;
  /** Every variant is done: the view shows the verdicts side by side. */
  finish(): void;
  /** ms since the current variant started, on the store's clock (the live cursor). */
  elapsed(): number;
  getSnapshot(): ScenarioScreen;
  subscribe(listener: () => void): () => void;
}

export interface ScenarioRunStoreOptions {
  readonly name: string;
  readonly title: string;
  readonly variantCount?: number;
  readonly clock?: () => number;
  /** Least time between two notifications caused by events. */
  readonly repaintMs?: number;
}

export function createScenarioRunStore({ name, title, variantCount, clock = Date.now, repaintMs = SCENARIO_REPAINT_MS }: ScenarioRunStoreOptions): ScenarioRunStore {
  const variants: { start: VariantStart; events: HistoryEvent[]; startedAt: number; result?: VariantRun }[] = [];
  let finished = false;
  const build = (): ScenarioScreen => ({
    name,
    title,
    ...(variantCount !== undefined ? { variantCount } : {}),
    variants: variants.map((v) => ({ ...v.start, events: [...v.events], startedAt: v.startedAt, ...(v.result ? { result: v.result } : {}) })),
    finished,
  });
  let snapshot = build();
  const listeners = new Set<() => void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastPublish = -Infinity;

  const publish = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    lastPublish = clock();
    snapshot = build();
    for (const listener of listeners) listener();
  };
  // Events wait for the next repaint slot, never drawn inside the runner's callback (the step or
  // reply it reports on goes on first); starts and finishes show at once.
  const schedule = (): void => {
    if (timer) return;
    timer = setTimeout(publish, Math.max(0, lastPublish + repaintMs - clock()));
  };

  return {
    startVariant: (start) => {
      variants.push({ start, events: [], startedAt: clock() });
      publish();
    },
    restartVariant: () => {
      const current = variants[variants.length - 1];
      if (!current || current.result) return;
      current.events = [];
      current.startedAt = clock();
      publish();
    },
    event: (e) => {
      const current = variants[variants.length - 1];
      if (!current || current.result) return;
      current.events.push(e);
      schedule();
    },
    finishVariant: (run) => {
      const current = variants.find((v) => v.start.variant === run.variant && !v.result) ?? variants[variants.length - 1];
      if (current) current.result = run;
      publish();
    },
    finish: () => {
      finished = true;
      publish();
    },
    elapsed: () => {
      const current = variants[variants.length - 1];
      return current ? clock() - current.startedAt : 0;
    },
    getSnapshot: () => snapshot,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
