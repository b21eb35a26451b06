// The catalogue replay check (issue 31): a shipped scenario's unsafe variant is run while a
// MONITOR trace records it, the recording becomes a scenario through `trace --from FILE --scenario`,
// and that scenario is run again, traced: its unsafe variant must show the recorded finding and
// its fixed variants must come out safe. Shared by test/trace/to-scenario.test.ts (once per
// variant) and scripts/scenario-replay-repeat.mjs (N times, with a table).

import { join } from 'node:path';
import { replayable, type Finding } from '../../src/core/trace/checker.js';
import type { VariantRun } from '../../src/core/scenario/run.js';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { run } from '../../src/main.js';
import { loadScenario } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/model.js';
import { DEFAULT_ATTEMPTS, runScenario } from '../../src/scenario/run-scenario.js';
import { startScenarioSandbox } from '../../src/scenario/sandbox.js';
import type { SandboxHandle } from '../../src/sandbox/handle.js';
import { runTrace } from '../../src/trace/run.js';

export interface Traced {
  readonly run: VariantRun;
  readonly findings: readonly Finding[];
}

/**
 * Runs one variant on `sandbox` while a MONITOR trace follows its primary (the Sentinel master
 * across a failover; every node of a Redlock sandbox, as `trace --nodes` would, at each node's own
 * port: a fault proxy's latency or partition is for the scenario's clients, not the trace), as
 * `trace --record FILE` would. Like the runner, an
 * attempt whose timing was inconclusive runs again (3 runs at most), each with a trace of its own:
 * the runner's cleanup between attempts (FLUSHALL) is no part of the race.
 */
export async function tracedVariant(scenario: Scenario, variant: string, sandbox: SandboxHandle, record?: string): Promise<Traced> {
  let traced = await tracedAttempt(scenario, variant, sandbox, record);
  for (let attempt = 2; attempt <= DEFAULT_ATTEMPTS && traced.run.outcome === 'inconclusive'; attempt++) traced = await tracedAttempt(scenario, variant, sandbox, record);
  return traced;
}

async function tracedAttempt(scenario: Scenario, variant: string, sandbox: SandboxHandle, record: string | undefined): Promise<Traced> {
  const sentinel = sandbox.urls.sentinel;
  const n1 = sandbox.nodes.find((n) => n.name === 'n1')!;
  const spec = parseEndpointUrl(sentinel ? `redis-sentinel://${sentinel.hosts.join(',')}#${sentinel.masterName}` : `redis://127.0.0.1:${n1.port}`);
  const redlockNodes = sandbox.topology === 'redlock' ? sandbox.nodes.filter((n) => n.role !== 'sentinel').map((n) => parseEndpointUrl(`redis://127.0.0.1:${n.port}`)) : undefined;
  const abort = new AbortController();
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const done = runTrace({ spec, redlockNodes, wants: () => true, signal: abort.signal, record, onStart: () => started(), onStatus: () => undefined });
  try {
    await Promise.race([ready, done]);
    const result = await runScenario(scenario, { sandbox, variants: [variant], attempts: 1 });
    abort.abort();
    // The trace fences as it stops: every line the server ran before it is decoded.
    const { session } = await done;
    return { run: result.variants[0]!, findings: session.findings };
  } finally {
    abort.abort();
    await done.catch(() => undefined);
  }
}

/**
 * Runs `fn` on a sandbox started for `scenario` under `dir` (a private folder: two checks at once,
 * or a user's own sandbox of the same name, never collide), stopped after it whatever happens.
 */
export async function onSandbox<T>(scenario: Scenario, dir: string, fn: (sandbox: SandboxHandle) => Promise<T>): Promise<T> {
  const sandbox = await startScenarioSandbox(scenario, { dir: join(dir, 'sandboxes') });
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.stop().catch(() => undefined);
  }
}

export interface Recorded {
  readonly recording: Traced;
  /** The first replayable (unsafe, or liveness: a deadlock or starvation) finding's kind, or undefined when the trace saw none. */
  readonly kind: string | undefined;
  /** What `trace --from REC --scenario OUT` did: exit code, its stdout and stderr. */
  readonly cli: { readonly code: number; readonly stdout: string; readonly stderr: string };
  /** The scenario it wrote (exit 0 only). */
  readonly replay: Scenario | undefined;
}

/** Records a shipped scenario's unsafe variant and turns the recording into a scenario in `dir`. */
export async function recordAndConvert(scenario: Scenario, dir: string, env: Record<string, string | undefined>): Promise<Recorded> {
  const record = join(dir, `${scenario.name}.ndjson`);
  const out = join(dir, `${scenario.name}-replay.yaml`);
  const recording = await onSandbox(scenario, dir, (sandbox) => tracedVariant(scenario, 'unsafe', sandbox, record));
  let stdout = '';
  let stderr = '';
  const code = await run(['trace', '--from', record, '--scenario', out], {
    stdout: { write: (t: string) => void (stdout += t), isTTY: false },
    stderr: { write: (t: string) => void (stderr += t), isTTY: false },
    env,
  });
  const replay = code === 0 ? await loadScenario(out) : undefined;
  return { recording, kind: recording.findings.find(replayable)?.kind, cli: { code, stdout, stderr }, replay };
}

export interface ReplayRun {
  /** The unsafe variant: the runner's outcome and the replayable kinds (unsafe, deadlock, starvation) its trace found. */
  readonly unsafe: { readonly outcome: VariantRun['outcome']; readonly kinds: readonly string[]; readonly why: string };
  /** Every other variant (the fixes), judged by the runner. */
  readonly fixed: readonly { readonly variant: string; readonly outcome: VariantRun['outcome']; readonly why: string }[];
}

/** One run of a replay scenario on `sandbox`: its unsafe variant traced, then each fix. */
export async function replayOnce(replay: Scenario, sandbox: SandboxHandle): Promise<ReplayRun> {
  const unsafe = await tracedVariant(replay, 'unsafe', sandbox);
  const fixes = replay.variants.filter((v) => v.name !== 'unsafe').map((v) => v.name);
  const fixed = fixes.length > 0 ? (await runScenario(replay, { sandbox, variants: fixes })).variants : [];
  const why = (v: VariantRun) => v.timing.inconclusive ?? v.verdict.violations.map((x) => x.kind).join(', ');
  return {
    unsafe: { outcome: unsafe.run.outcome, kinds: [...new Set(unsafe.findings.filter(replayable).map((f) => f.kind))], why: why(unsafe.run) },
    fixed: fixed.map((v) => ({ variant: v.variant, outcome: v.outcome, why: why(v) })),
  };
}

/**
 * Whether a replay's trace shows the recorded finding: the same kind. A lock lost in a failover
 * has two forms in the trace, either of which stands for the other: it checks the promoted
 * primary with EXISTS, so when B took the lock there before the trace followed, A's loss shows at
 * its refused release (expired-while-held) instead of lost-in-failover.
 */
export function sameFinding(recorded: string | undefined, replayed: readonly string[], failover: boolean): boolean {
  if (recorded === undefined) return false;
  const forms = failover && FAILOVER_FORMS.includes(recorded) ? FAILOVER_FORMS : [recorded];
  return forms.some((k) => replayed.includes(k));
}

const FAILOVER_FORMS: readonly string[] = ['lost-in-failover', 'expired-while-held'];

/** Whether a scenario replays a failover (its fault, whatever the trace called the loss). */
export const replaysFailover = (s: Scenario): boolean => s.steps.some((x) => 'fault' in x && x.fault === 'failover');
