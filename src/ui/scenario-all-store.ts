import type { ScenarioRun } from '../core/scenario/run.js';

// `scenario run --all`: one progress entry per scenario, folded outside React like the other
// stores. The runner reports far fewer things here than in a single run (a start, a few variant
// starts, a finish per scenario), so every change is shown at once.

export type ScenarioProgress =
  | { readonly name: string; readonly status: 'pending' }
  | {
      readonly name: string;
      readonly status: 'running';
      readonly startedAt: number;
      readonly variant?: string;
      /** 0-based index of the running variant, and how many the scenario has. */
      readonly variantIndex?: number;
      readonly variantCount?: number;
    }
  | { readonly name: string; readonly status: 'done'; readonly run: ScenarioRun; readonly durationMs: number }
  | { readonly name: string; readonly status: 'error'; readonly error: string; readonly durationMs: number };

export interface ScenarioAllScreen {
  readonly scenarios: readonly ScenarioProgress[];
  /** No scenario is pending or running any more. */
  readonly finished: boolean;
}

export interface ScenarioAllStore {
  startScenario(name: string, variantCount?: number): void;
  startVariant(name: string, variant: string, index?: number): void;
  /** `durationMs` defaults to the time since startScenario. */
  finishScenario(run: ScenarioRun, durationMs?: number): void;
  failScenario(name: string, error: string): void;
  /** The store's clock, for the running scenarios' elapsed time. */
  now(): number;
  getSnapshot(): ScenarioAllScreen;
  subscribe(listener: () => void): () => void;
}

export function createScenarioAllStore(names: readonly string[], clock: () => number = Date.now): ScenarioAllStore {
  let scenarios: ScenarioProgress[] = names.map((name) => ({ name, status: 'pending' }));
  const build = (): ScenarioAllScreen => ({ scenarios, finished: scenarios.every((s) => s.status === 'done' || s.status === 'error') });
  let snapshot = build();
  const listeners = new Set<() => void>();
  const update = (name: string, next: (prev: ScenarioProgress) => ScenarioProgress): void => {
    // A name the list did not announce (a command that discovers scenarios as it goes) is appended.
    if (!scenarios.some((s) => s.name === name)) scenarios = [...scenarios, { name, status: 'pending' }];
    scenarios = scenarios.map((s) => (s.name === name ? next(s) : s));
    snapshot = build();
    for (const listener of listeners) listener();
  };
  const startedAt = (s: ScenarioProgress): number => (s.status === 'running' ? s.startedAt : clock());

  return {
    startScenario: (name, variantCount) =>
      update(name, () => ({ name, status: 'running', startedAt: clock(), ...(variantCount !== undefined ? { variantCount } : {}) })),
    startVariant: (name, variant, index) =>
      update(name, (prev) => ({
        ...(prev.status === 'running' ? prev : { name, status: 'running' as const, startedAt: clock() }),
        variant,
        ...(index !== undefined ? { variantIndex: index } : {}),
      })),
    finishScenario: (run, durationMs) => update(run.name, (prev) => ({ name: run.name, status: 'done', run, durationMs: durationMs ?? clock() - startedAt(prev) })),
    failScenario: (name, error) => update(name, (prev) => ({ name, status: 'error', error, durationMs: clock() - startedAt(prev) })),
    now: clock,
    getSnapshot: () => snapshot,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
