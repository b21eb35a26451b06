// The session's live half: the panel poller on the current target (restarted when the target
// changes), its folded state, and the attached sandbox's status poller.

import type { InspectKind } from '../core/lock-view.js';
import type { Poller } from '../core/poller.js';
import type { TargetSpec } from '../redis/target.js';
import type { SandboxHandle, SandboxStatus } from '../sandbox/index.js';
import { startPanel, startSandboxPoller, type Panel } from './panel.js';
import { emptyPanel, foldPoll, type PanelScreen } from './panel-state.js';
import type { SandboxPanel } from '../ui/repl-screen.js';

export interface LivePanelOptions {
  readonly intervalMs: number;
  /** The keys to read each tick. */
  readonly keys: () => readonly string[];
  readonly kindOf: (key: string) => InspectKind | undefined;
  /** Something on the panel changed: repaint. */
  readonly onChange: () => void;
  /** A line for the output area (what changed on a key, the connection coming and going). */
  readonly onLine: (text: string) => void;
}

export class LivePanel {
  state: PanelScreen;
  private panel: Panel | undefined;
  private sandbox: { handle: SandboxHandle; poller: Poller; status?: SandboxStatus | undefined; error?: string | undefined } | undefined;

  constructor(private readonly opts: LivePanelOptions) {
    this.state = emptyPanel(opts.intervalMs);
  }

  /** (Re)starts reading from this target; what was read elsewhere is forgotten. */
  retarget(spec: TargetSpec, label: string): void {
    void this.panel?.close();
    this.state = { ...emptyPanel(this.opts.intervalMs), watched: this.state.watched };
    const panel: Panel = startPanel({
      spec,
      intervalMs: this.opts.intervalMs,
      keys: this.opts.keys,
      kindOf: this.opts.kindOf,
      onState: (poll) => {
        if (this.panel !== panel) return; // a read of the previous target
        const { panel: next, lines } = foldPoll(this.state, poll);
        this.state = next;
        for (const line of lines) this.opts.onLine(line);
        this.opts.onChange();
      },
      onConnection: (down) => {
        if (this.panel !== panel) return;
        this.state = { ...this.state, reconnecting: down };
        this.opts.onLine(down ? `panel: connection to ${label} lost, reconnecting` : `panel: reconnected to ${label}`);
        this.opts.onChange();
      },
    });
    this.panel = panel;
  }

  refresh(): void {
    this.panel?.refresh();
  }

  setWatched(keys: readonly string[]): void {
    this.state = { ...this.state, watched: keys };
    this.refresh();
    this.opts.onChange();
  }

  attach(handle: SandboxHandle): void {
    this.detach();
    const entry: NonNullable<LivePanel['sandbox']> = {
      handle,
      poller: startSandboxPoller(handle, this.opts.intervalMs, (poll) => {
        if (poll.type === 'ok') [entry.status, entry.error] = [poll.snapshot, undefined];
        else if (poll.type === 'retrying') entry.error = poll.error;
        this.opts.onChange();
      }),
    };
    this.sandbox = entry;
  }

  /** Stops showing the sandbox (it keeps running). */
  detach(): void {
    this.sandbox?.poller.stop();
    this.sandbox = undefined;
  }

  get attached(): SandboxHandle | undefined {
    return this.sandbox?.handle;
  }

  get sandboxView(): SandboxPanel | undefined {
    return this.sandbox ? { name: this.sandbox.handle.name, status: this.sandbox.status, error: this.sandbox.error } : undefined;
  }

  async close(): Promise<void> {
    this.detach();
    const panel = this.panel;
    this.panel = undefined;
    await panel?.close();
  }
}
