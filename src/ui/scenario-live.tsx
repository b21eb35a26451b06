import type { HistoryEvent } from '../core/scenario/history.js';
import type { ScenarioRun, VariantRun } from '../core/scenario/run.js';
import { createScenarioAllStore, type ScenarioAllStore } from './scenario-all-store.js';
import { createScenarioRunStore, SCENARIO_REPAINT_MS, type VariantStart } from './scenario-run-store.js';
import { ScenarioAllView } from './ScenarioAllView.js';
import { ScenarioRunView } from './ScenarioRunView.js';
import { mountLive } from './mount-view.js';

// Lazily imported by `scenario run` on a terminal (this module pulls in ink and react): the
// command hands the runner's callbacks to these and closes the view when the run is over.

interface Stream {
  write(text: string): unknown;
}

export interface MountOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
}

export interface LiveScenarioRun {
  startVariant(start: VariantStart): void;
  /** The runner's onRetry: the variant's lanes start over. */
  restartVariant(): void;
  /** Pass as the runner's onEvent. */
  event(e: HistoryEvent): void;
  finishVariant(run: VariantRun): void;
  /** Shows the verdicts side by side, then unmounts leaving the last frame on screen. */
  close(): Promise<void>;
}

/** Mounts the live view of one `scenario run <name>`. */
export function mountScenarioRunView(opts: MountOptions & { readonly name: string; readonly title: string; readonly variantCount?: number }): LiveScenarioRun {
  const store = createScenarioRunStore({ name: opts.name, title: opts.title, ...(opts.variantCount !== undefined ? { variantCount: opts.variantCount } : {}) });
  // No key handling: Ctrl-C stays a signal, which the launcher turns into ctx.signal. Frames at
  // the store's cadence, however many updates (cursor ticks, events) fall between two of them.
  const maxFps = 1000 / SCENARIO_REPAINT_MS;
  const view = mountLive(<ScenarioRunView store={store} />, opts, { beforeClose: store.finish, settle: true, maxFps });
  return {
    startVariant: store.startVariant,
    restartVariant: store.restartVariant,
    event: store.event,
    finishVariant: store.finishVariant,
    close: view.close,
  };
}

export interface LiveScenarioAll {
  startScenario: ScenarioAllStore['startScenario'];
  startVariant: ScenarioAllStore['startVariant'];
  finishScenario(run: ScenarioRun, durationMs?: number): void;
  failScenario(name: string, error: string): void;
  close(): Promise<void>;
}

/** Mounts the progress view of `scenario run --all` over the scenarios to run, in order. */
export function mountScenarioAllView(opts: MountOptions & { readonly names: readonly string[] }): LiveScenarioAll {
  const store = createScenarioAllStore(opts.names);
  const view = mountLive(<ScenarioAllView store={store} />, opts, { settle: true });
  return {
    startScenario: store.startScenario,
    startVariant: store.startVariant,
    finishScenario: store.finishScenario,
    failScenario: store.failScenario,
    close: view.close,
  };
}
