import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { detectClockSupport } from './clock-detect.js';
import { fakeClockFile, resetFakeClock } from './clock-faketime.js';
import { respRunner } from './clock-runner.js';
import { shiftClock, type ClockChange, type ClockReport } from './clock.js';
import type { ActionResult } from './faults.js';
import { nodeDir } from './state.js';
import type { Supervisor } from './supervisor.js';

export interface ClockActionResult extends ActionResult {
  readonly clock: ClockReport;
}

/**
 * `clock <node> +10s|x2`: through libfaketime when the node was started under it (withFakeClocks),
 * otherwise by rewriting its TTLs; the message names the method and, for the fallback, why.
 */
export async function clockVerb(sup: Supervisor, name: string, change: ClockChange): Promise<ClockActionResult> {
  const node = sup.record(name);
  if (node.role === 'sentinel') throw new UsageError(`clock applies to redis nodes, and ${name} is a sentinel`);
  if (node.state === 'killed' || !sup.owns(node)) {
    throw new UsageError(`cannot change the clock of ${name}: it is not running (start it again with: ${sandboxCommand(sup.state.name, 'restart', name)})`);
  }
  const started = Date.now();
  const file = fakeClockFile(node.env);
  const support = file ? undefined : detectClockSupport();
  const clock = await shiftClock(
    {
      name,
      client: respRunner(node.port),
      // Relative files live in the node's directory, its working directory.
      fakeClock: file ? resolve(nodeDir(sup.dir, name), file) : undefined,
      fallbackReason:
        support?.method === 'ttl-rewrite' ? support.reason : `${name} runs without libfaketime: the sandbox was started without fake clocks (sandbox up --fake-clock)`,
    },
    change,
  );
  return { verb: 'clock', node: name, pid: node.pid, port: node.port, message: clock.message, ms: Date.now() - started, clock };
}

/**
 * Puts a node started under libfaketime back on real time (a scenario variant starts from a clean
 * state, not from the clock an earlier variant jumped). Without libfaketime a clock change only
 * rewrote TTLs, which a flush takes away, so there is nothing to undo. True when a clock was reset.
 */
export function resetClockVerb(sup: Supervisor, name: string): boolean {
  const node = sup.record(name);
  const file = fakeClockFile(node.env);
  return file !== undefined && resetFakeClock(resolve(nodeDir(sup.dir, name), file));
}
