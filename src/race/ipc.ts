// Messages between the race parent and its worker processes (child_process IPC, JSON).

import type { HistoryEvent } from '../core/scenario/history.js';
import type { ClientSpec, LoopConfig } from './local-pool.js';
import type { SessionConfig } from './session.js';

export interface WorkerConfig extends LoopConfig {
  readonly session: SessionConfig;
  readonly clients: readonly ClientSpec[];
  /** This process's slot in the history's id space (the parent is 0). */
  readonly index: number;
}

/** Figures a worker measures about itself, for the harness self-check. */
export interface WorkerLoad {
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  readonly wallMs: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

export type ResourceRequest =
  | { readonly op: 'read'; readonly key: string }
  | { readonly op: 'set'; readonly key: string; readonly value: number }
  | { readonly op: 'write'; readonly key: string; readonly writer: string; readonly token?: number; readonly value: number };

export type ToWorker =
  | { readonly type: 'start'; readonly config: WorkerConfig }
  | { readonly type: 'go'; readonly origin: string }
  | { readonly type: 'reply'; readonly rid: number; readonly value: number | boolean | null }
  | { readonly type: 'stop' };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string; readonly exitCode: number }
  | { readonly type: 'events'; readonly events: readonly HistoryEvent[] }
  | { readonly type: 'request'; readonly rid: number; readonly req: ResourceRequest }
  | { readonly type: 'done'; readonly load: WorkerLoad };
