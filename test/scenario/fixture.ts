import type { HistoryEvent, History, OpEvent, ServerEvent } from '../../src/core/scenario/history.js';
import { lockLostText, renewedText } from '../../src/core/scenario/timeline-events.js';
import type { ClientAction, Scenario, ScenarioClient, Step, Variant } from '../../src/scenario/model.js';
import { runVariant, type VariantResult } from '../../src/scenario/runner.js';

// Scenarios built directly in TypeScript (no YAML), with the loader's defaults filled in.

type Acquire = Extract<ClientAction, { do: 'acquire' }>;

/** An acquire step's fields with the loader's defaults. */
export function acquire(client: string, at: number, fields: Partial<Omit<Acquire, 'do'>> & { only?: readonly string[] } = {}): Step {
  return { client, at, do: 'acquire', watchdogLeaseMs: 900, waitMs: 0, mode: 'atomic', checkValidity: true, ...fields } as Step;
}

/** Any other client step. */
export function step(client: string, at: number, action: Exclude<ClientAction, Acquire>, only?: readonly string[]): Step {
  return { client, at, ...action, ...(only ? { only } : {}) } as Step;
}

export function scenario(fields: Omit<Partial<Scenario>, 'clients' | 'steps'> & { steps: readonly Step[]; clients?: readonly (string | ScenarioClient)[] }): Scenario {
  const clients = (fields.clients ?? ['A', 'B']).map((c) => (typeof c === 'string' ? { name: c, stopOnLost: false } : c));
  const variants: readonly Variant[] = fields.variants ?? [{ name: 'unsafe', description: 'as written', expect: [] }];
  return {
    name: 'test',
    file: 'test.yaml',
    title: 'test',
    summary: '',
    narration: '',
    sources: [],
    lookFor: [],
    sandbox: { topology: 'single', fakeClock: false, config: {} },
    lock: { kind: 'token', key: 'orders' },
    resource: { fencing: 'off' },
    seed: [],
    starvationMs: 5000,
    settleMs: 50,
    ...fields,
    clients,
    variants,
    steps: [...fields.steps].sort((a, b) => a.at - b.at),
  };
}

export const ops = (h: History): OpEvent[] => h.events.filter((e): e is OpEvent => e.kind === 'op');

/** The completion (ok / fail) of the n-th `op` of `client` (0-based). */
export function done(h: History, client: string, op: OpEvent['op'], n = 0): OpEvent {
  const found = ops(h).filter((e) => e.client === client && e.op === op && e.phase !== 'invoke')[n];
  if (!found) throw new Error(`no completed ${op} #${n} of ${client} in:\n${dump(h)}`);
  return found;
}

export function invoke(h: History, client: string, op: OpEvent['op'], n = 0): OpEvent {
  const found = ops(h).filter((e) => e.client === client && e.op === op && e.phase === 'invoke')[n];
  if (!found) throw new Error(`no ${op} #${n} of ${client} in:\n${dump(h)}`);
  return found;
}

export const servers = (h: History): ServerEvent[] => h.events.filter((e): e is ServerEvent => e.kind === 'server');
/** What a lane says besides its operations: notes, lock-lost and renewed events, in words. */
export const notes = (h: History, lane?: string): string[] =>
  h.events.flatMap((e) => {
    if (e.kind === 'note') return lane === undefined || e.lane === lane ? [e.text] : [];
    if (e.kind === 'lock-lost') return lane === undefined || e.client === lane ? [lockLostText(e)] : [];
    if (e.kind === 'renewed') return lane === undefined || e.client === lane ? [renewedText(e)] : [];
    return [];
  });

/** The history as lines, for failure messages. */
export function dump(h: History): string {
  return h.events.map((e: HistoryEvent) => `${e.t.toFixed(1).padStart(7)} ${JSON.stringify({ ...e, t: undefined })}`).join('\n');
}

/**
 * Runs a variant until its timing stayed within what the race tolerates (3 runs at most), as the
 * scenario runner retries: a test then asserts on a history that kept to its timetable. When all
 * three ran late (a starved machine) it gets the last one, whose timing says why (`timing.inconclusive`).
 */
export async function runOnTime(...args: Parameters<typeof runVariant>): Promise<VariantResult> {
  let result = await runVariant(...args);
  for (let attempt = 2; attempt <= 3 && result.timing.inconclusive !== undefined; attempt++) result = await runVariant(...args);
  return result;
}
