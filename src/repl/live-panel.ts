// The session's live half: the panel poller on the current target (restarted when the target
// changes) and the attached sandbox's status poller. What they read goes to the session's state
// as actions; this only owns the pollers and their connections.

import type { InspectKind, LockView } from '../core/lock-view.js';
import type { PollState, Poller } from '../core/poller.js';
import type { TargetSpec } from '../redis/target.js';
import type { SandboxHandle, SandboxStatus } from '../sandbox/index.js';
import { startPanel, startSandboxPoller, type Panel } from './panel.js';

export interface LivePanelOptions {
  readonly intervalMs: number;
  /** The keys to read each tick. */
  readonly keys: () => readonly string[];
  readonly kindOf: (key: string) => InspectKind | undefined;
  readonly onPoll: (poll: PollState<readonly LockView[]>) => void;
  readonly onConnection: (down: boolean) => void;
  readonly onSandboxPoll: (poll: PollState<SandboxStatus>) => void;
}

export class LivePanel {
  private panel: Panel | undefined;
  private sandbox: { readonly handle: SandboxHandle; readonly poller: Poller } | undefined;

  constructor(private readonly opts: LivePanelOptions) {}

  /** (Re)starts reading from this target. */
  retarget(spec: TargetSpec): void {
    void this.panel?.close();
    const panel: Panel = startPanel({
      spec,
      intervalMs: this.opts.intervalMs,
      keys: this.opts.keys,
      kindOf: this.opts.kindOf,
      // A read of the previous target says nothing about this one.
      onState: (poll) => this.panel === panel && this.opts.onPoll(poll),
      onConnection: (down) => this.panel === panel && this.opts.onConnection(down),
    });
    this.panel = panel;
  }

  refresh(): void {
    this.panel?.refresh();
  }

  attach(handle: SandboxHandle): void {
    this.detach();
    const poller = startSandboxPoller(
      handle,
      this.opts.intervalMs,
      (poll) => this.sandbox?.poller === poller && this.opts.onSandboxPoll(poll),
    );
    this.sandbox = { handle, poller };
  }

  /** Stops showing the sandbox (it keeps running). */
  detach(): void {
    this.sandbox?.poller.stop();
    this.sandbox = undefined;
  }

  get attached(): SandboxHandle | undefined {
    return this.sandbox?.handle;
  }

  async close(): Promise<void> {
    this.detach();
    const panel = this.panel;
    this.panel = undefined;
    await panel?.close();
  }
}
