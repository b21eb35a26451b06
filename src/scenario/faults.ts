import { formatDuration, parseDuration } from '../core/duration.js';
import { CliError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { FAILOVER_HOWS, parseClockChange, type FailoverHow } from '../sandbox/index.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import { call } from '../sandbox/resp.js';
import type { RunClock } from './clock.js';
import { applyConfig } from './config.js';
import type { FaultStep } from './model.js';
import type { Recorder } from './recorder.js';

/** A fault step the sandbox refused or could not carry out: the scenario is broken, there is no verdict. */
export class ScenarioFaultError extends CliError {}

export interface FaultContext {
  readonly sandbox: SandboxHandle;
  readonly clock: RunClock;
  readonly recorder: Recorder;
  /** The settings the variant runs with (re-applied to a restarted node, which forgets them). */
  readonly config: Readonly<Record<string, string>>;
  /** Work that outlives the step (a paused node's scheduled resume) and that the run waits for. */
  track(work: Promise<unknown>): void;
  /** The primary changed: the runner's readers find it again. */
  onFailover(): void;
}

/**
 * Runs one fault step on the sandbox and records it (invoke, then ok or fail). Durations in the
 * step are scenario ms and are scaled like every other duration; a clock jump too, a clock rate not.
 */
export async function runFault(step: FaultStep, ctx: FaultContext): Promise<void> {
  const { sandbox, clock } = ctx;
  if (step.node === 'replicas') {
    // Every node that is a replica now: after a failover an earlier variant left behind, which
    // nodes those are changes, and a stall that misses one lets it be promoted with the lock.
    // A node too busy to answer the status's quick INFO reads as role 'unknown', state
    // 'unresponsive': it is still a replica (the variant started only once every non-primary node
    // replicated from the primary), and the stall itself reads its role again, patiently.
    const live = (n: { state: string }): boolean => n.state === 'running' || n.state === 'unresponsive';
    const replicas = (await sandbox.status()).nodes.filter((n) => (n.role === 'replica' || n.role === 'unknown') && live(n)).map((n) => n.name);
    if (replicas.length === 0) {
      ctx.recorder.fault('sandbox', step.fault, { detail: 'replicas' }).fail({ detail: 'no node answers as a replica' });
      throw new ScenarioFaultError(`fault "${step.fault} replicas" at ${formatDuration(step.at)} failed: no node answers as a replica`, ExitCode.usage);
    }
    await Promise.all(replicas.map((node) => runFault({ ...step, node }, ctx)));
    return;
  }
  const node = step.node === 'primary' ? (await sandbox.node('primary')).name : step.node;
  const lane = node ?? 'sandbox';
  const rec = ctx.recorder.fault(lane, step.fault, describe(step));
  const need = (): string => {
    if (node === undefined) throw new CliError(`fault ${step.fault} needs a node`, ExitCode.usage);
    return node;
  };
  try {
    let detail: string | undefined;
    switch (step.fault) {
      case 'kill':
        await sandbox.kill(need());
        break;
      case 'restart':
        await sandbox.restart(need(), { amnesia: step.amnesia ?? false });
        await applyConfig(sandbox, ctx.config, need());
        detail = step.amnesia ? 'came back empty' : 'restarted (no persistence: empty)';
        break;
      case 'pause': {
        const paused = await sandbox.pause(need(), step.forMs !== undefined ? { forMs: clock.real(step.forMs) } : {});
        if (paused.resumed) {
          ctx.track(paused.resumed.then(() => ctx.recorder.note(lane, `${lane} resumed`), () => ctx.recorder.note(lane, `${lane} could not be resumed`)));
        }
        break;
      }
      case 'resume':
        await sandbox.resume(need());
        break;
      case 'failover': {
        const how = FAILOVER_HOWS.includes(step.value as FailoverHow) ? { how: step.value as FailoverHow } : {};
        const result = await sandbox.failover(how);
        ctx.onFailover();
        detail = `${result.from} -> ${result.to} in ${formatDuration(result.ms)}`;
        break;
      }
      case 'stall-replication':
        await sandbox.stallReplication(need(), step.forMs !== undefined ? { forMs: clock.real(step.forMs) } : {});
        break;
      case 'clock': {
        const change = parseClockChange(step.value ?? '');
        const scaled = change.kind === 'jump' ? { kind: 'jump' as const, ms: Math.sign(change.ms) * clock.real(Math.abs(change.ms)) } : change;
        detail = (await sandbox.clock(need(), scaled)).message;
        break;
      }
      case 'latency':
        await sandbox.latency(need(), clock.real(parseDuration(step.value ?? '', 'latency')));
        break;
      case 'partition':
        await sandbox.partition(need());
        break;
      case 'heal':
        await sandbox.heal(need());
        break;
      case 'flush':
        await call((await sandbox.node(need())).port, ['FLUSHALL'], 2000);
        break;
    }
    rec.ok(detail !== undefined ? { detail } : {});
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    rec.fail({ detail: message });
    const code = err instanceof CliError ? err.exitCode : ExitCode.unexpected;
    throw new ScenarioFaultError(`fault "${step.fault}${node ? ` ${node}` : ''}" at ${formatDuration(step.at)} failed: ${message}`, code);
  }
}

function describe(step: FaultStep): { detail?: string } {
  const parts: string[] = [];
  if (step.value !== undefined) parts.push(step.value);
  if (step.forMs !== undefined) parts.push(`for ${formatDuration(step.forMs)}`);
  if (step.amnesia) parts.push('amnesia');
  return parts.length > 0 ? { detail: parts.join(' ') } : {};
}
