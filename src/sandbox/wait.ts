import { InterruptedError, UnreachableError } from '../core/errors.js';
import { sleep } from '../core/sleep.js';

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new InterruptedError('interrupted: stopped what was started');
}

/**
 * Polls `check` every `intervalMs` until it returns true; a failing check counts as false.
 * Bounded by `timeoutMs` (UnreachableError naming `what`) and by the abort signal.
 */
export async function until(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    checkAborted(opts.signal);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new UnreachableError(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(opts.intervalMs ?? 25);
  }
}
