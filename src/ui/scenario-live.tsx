import { render } from 'ink';
import type { ReactNode } from 'react';
import type { HistoryEvent } from '../core/scenario/history.js';
import type { ScenarioRun, VariantRun } from '../core/scenario/run.js';
import { createScenarioAllStore, type ScenarioAllStore } from './scenario-all-store.js';
import { createScenarioRunStore, type VariantStart } from './scenario-run-store.js';
import { ScenarioAllView } from './ScenarioAllView.js';
import { ScenarioRunView } from './ScenarioRunView.js';

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

const mount = (node: ReactNode, opts: MountOptions) =>
  render(node, {
    stdout: opts.stdout as NodeJS.WriteStream,
    stderr: opts.stderr as NodeJS.WriteStream,
    // No key handling: Ctrl-C stays a signal, which the launcher turns into ctx.signal.
    exitOnCtrlC: false,
    patchConsole: false,
  });

async function unmount(instance: ReturnType<typeof render>): Promise<void> {
  // Let React commit the last update, so the final frame stays on screen.
  await new Promise((resolve) => setTimeout(resolve, 50));
  instance.unmount();
  await instance.waitUntilExit();
}

/** Mounts the live view of one `scenario run <name>`. */
export function mountScenarioRunView(opts: MountOptions & { readonly name: string; readonly title: string; readonly variantCount?: number }): LiveScenarioRun {
  const store = createScenarioRunStore({ name: opts.name, title: opts.title, ...(opts.variantCount !== undefined ? { variantCount: opts.variantCount } : {}) });
  const instance = mount(<ScenarioRunView store={store} />, opts);
  let closed = false;
  return {
    startVariant: store.startVariant,
    restartVariant: store.restartVariant,
    event: store.event,
    finishVariant: store.finishVariant,
    close: async () => {
      if (closed) return;
      closed = true;
      store.finish();
      await unmount(instance);
    },
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
  const instance = mount(<ScenarioAllView store={store} />, opts);
  let closed = false;
  return {
    startScenario: store.startScenario,
    startVariant: store.startVariant,
    finishScenario: store.finishScenario,
    failScenario: store.failScenario,
    close: async () => {
      if (closed) return;
      closed = true;
      await unmount(instance);
    },
  };
}
