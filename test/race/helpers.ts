import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { readdirSync, readFileSync } from 'node:fs';
import { checkRacePlan, type RaceInput, type RacePlan } from '../../src/core/race/plan.js';
import type { HistoryEvent, OpEvent } from '../../src/core/scenario/history.js';
import { runRace, type RaceResult } from '../../src/race/run.js';
import { tempStateEnv } from '../helpers/run-cli.js';

/** A race plan with test-sized defaults; the target is the URL unless `change` gives one. */
export function plan(url: string, change: Partial<RaceInput>): RacePlan {
  return checkRacePlan({
    keys: ['orders'],
    kind: 'token',
    clients: 8,
    procs: 0,
    durationMs: 2000,
    leaseMs: 2000,
    holdMs: 1,
    holdDist: 'fixed',
    waitMs: 1000,
    release: 'safe',
    renew: true,
    // Parsed only when it is the target: tests that pass their own target give '' as the URL.
    target: change.target ?? { type: 'url', endpoint: parseEndpointUrl(url) },
    ...change,
  });
}

export const env = tempStateEnv();

export function race(p: RacePlan): Promise<RaceResult> {
  return runRace(p, { env });
}

/** Op events of one kind and phase, over every key. */
export function ops(r: RaceResult, op: OpEvent['op'], phase: OpEvent['phase']): OpEvent[] {
  return r.keys.flatMap((k) => k.history.events.filter((e: HistoryEvent): e is OpEvent => e.kind === 'op' && e.op === op && e.phase === phase));
}

export const kinds = (r: RaceResult): string[] => [...new Set(r.violations.map((v) => v.kind))].sort();

/** Our own child processes running the race worker, by pid (from /proc). */
export function raceWorkers(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('race/worker.js')) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}
