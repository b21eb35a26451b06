// The REPL's screen before the CLI has loaded: the prompt is there and typing works, lines entered
// wait, and once the real session is ready everything is handed to it. Keeps the first prompt
// from waiting for every command module (and ioredis) to load. Light imports only.

import type { ReplController } from '../ui/ReplApp.js';
import { emptyPanel } from '../core/repl/panel.js';
import type { ReplScreen } from '../ui/repl-screen.js';

export interface BootOptions {
  readonly client: string;
  readonly clients: readonly string[];
  /** The prompt's target label (`127.0.0.1:6379`). */
  readonly target: string;
  readonly intervalMs: number;
  readonly history: readonly string[];
}

/** A controller that stands in for the session until `ready(session)`, then forwards to it. */
export interface BootController extends ReplController {
  ready(session: ReplController): void;
  /** Shows why the REPL could not start (the prompt stays, but nothing will run). */
  failed(message: string): void;
}

export function bootController(opts: BootOptions): BootController {
  const listeners = new Set<() => void>();
  const queued: string[] = [];
  let real: ReplController | undefined;
  let screen: ReplScreen = {
    output: [],
    prompt: `${opts.client}@${opts.target}> `,
    client: opts.client,
    clients: opts.clients,
    target: opts.target,
    queued: 0,
    panel: emptyPanel(opts.intervalMs),
    held: [],
    heldElsewhere: [],
    waiting: [],
    jobs: [],
    ended: false,
  };
  const notify = (): void => {
    for (const listener of listeners) listener();
  };
  const queue = (line: string): void => {
    queued.push(line);
    screen = { ...screen, queued: queued.length };
    notify();
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => (real ? real.getSnapshot() : screen),
    submit: (line) => (real ? real.submit(line) : queue(line)),
    interrupt: () => (real ? real.interrupt() : false),
    eof: () => (real ? real.eof() : queue('exit')),
    complete: (before) => (real ? real.complete(before) : []),
    get history() {
      return real ? real.history : opts.history;
    },
    ready(session) {
      real = session;
      session.subscribe(notify);
      for (const line of queued.splice(0)) session.submit(line);
      notify();
    },
    failed(message) {
      screen = { ...screen, output: [{ id: 0, text: message, tone: 'error' }], ended: true };
      notify();
    },
  };
}
