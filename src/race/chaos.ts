// --chaos: one fault every --chaos-every, never two at once. pause and kill-holder pick a client
// that holds a lock right then; the other verbs go through the sandbox to a node. Every fault is
// a fault event in the history, and whatever it broke is healed before the race ends.

import { LASTING_VERBS, type ChaosVerb } from '../core/race/plan.js';
import { sleep } from '../core/sleep.js';
import type { SandboxHandle } from '../sandbox/index.js';
import type { Recorder } from './recorder.js';

/** What chaos needs from the clients: who holds a lock, and how to pause or kill one. */
export interface ChaosClients {
  holders(): string[];
  /** Freezes the holder (and, with --procs, its whole worker) for `ms`; returns what it did. */
  pause(client: string, ms: number): Promise<string>;
  crash(client: string): Promise<string>;
}

export interface ChaosOptions {
  readonly verb: ChaosVerb;
  readonly everyMs: number;
  readonly forMs: number;
  readonly leaseMs: number;
  readonly rec: Recorder;
  readonly clients: ChaosClients;
  readonly sandbox?: SandboxHandle | undefined;
  readonly node: string;
  /** When the race stops (Date.now() time): a fault that could not finish by then is not started. */
  readonly deadline: number;
}

// A holder is usually there within a hold time; after this long without one the tick is skipped.
const FIND_HOLDER_MS = 500;
/** A Sentinel failover in a sandbox takes about two seconds (docs/performance.md, Sandbox). */
const FAILOVER_TAKES_MS = 3000;

function lasts(opts: ChaosOptions): number {
  if (opts.verb === 'failover') return FAILOVER_TAKES_MS;
  return LASTING_VERBS.includes(opts.verb) ? opts.forMs : 0;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Starts the schedule (first fault after one period); stop() waits for a fault in progress to heal. */
export function startChaos(opts: ChaosOptions): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    if (stopped || Date.now() + lasts(opts) > opts.deadline) return;
    running = fire(opts, () => stopped).finally(() => {
      if (!stopped) timer = setTimeout(tick, opts.everyMs);
    });
  };
  timer = setTimeout(tick, opts.everyMs);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

async function fire(opts: ChaosOptions, stopped: () => boolean): Promise<void> {
  const { verb, rec } = opts;
  if (verb === 'pause' || verb === 'kill-holder') {
    const holder = await findHolder(opts.clients, stopped);
    if (holder === undefined) {
      if (!stopped()) rec.note('chaos', `${verb}: no client held a lock for ${FIND_HOLDER_MS} ms, skipped`);
      return;
    }
    const done = rec.fault(holder, verb);
    try {
      done('ok', verb === 'pause' ? await opts.clients.pause(holder, opts.forMs) : await opts.clients.crash(holder));
    } catch (err) {
      done('fail', messageOf(err));
    }
    return;
  }
  const sandbox = opts.sandbox;
  if (!sandbox) return;
  const node = verb === 'failover' ? 'sandbox' : (await sandbox.node(opts.node).catch(() => undefined))?.name ?? opts.node;
  const done = rec.fault(node, verb);
  try {
    switch (verb) {
      case 'failover':
        done('ok', (await sandbox.failover()).message);
        break;
      case 'clock':
        // Twice the lease: every lease on the node runs out at once, as after an NTP step.
        done('ok', (await sandbox.clock(node, `+${2 * opts.leaseMs}ms`)).message);
        break;
      case 'latency':
        await sandbox.latency(node, opts.leaseMs);
        await sleep(opts.forMs);
        await sandbox.heal(node);
        done('ok', `${opts.leaseMs} ms more per round trip for ${opts.forMs} ms`);
        break;
      case 'partition':
        await sandbox.partition(node);
        await sleep(opts.forMs);
        await sandbox.heal(node);
        done('ok', `clients cut off for ${opts.forMs} ms`);
        break;
    }
  } catch (err) {
    done('fail', messageOf(err));
    if (verb === 'latency' || verb === 'partition') await sandbox.heal(node).catch(() => undefined);
  }
}

async function findHolder(clients: ChaosClients, stopped: () => boolean): Promise<string | undefined> {
  const until = Date.now() + FIND_HOLDER_MS;
  while (!stopped() && Date.now() < until) {
    const holders = clients.holders();
    if (holders.length > 0) return holders[Math.floor(Math.random() * holders.length)];
    await sleep(2);
  }
  return undefined;
}
