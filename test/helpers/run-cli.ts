import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/main.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A private state dir per test file, so remembered owners never leak between files or into $HOME. */
export function tempStateEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { HOME: process.env.HOME, PATH: process.env.PATH, XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'redlock-cli-state-')), ...extra };
}

/** Runs the CLI in-process through run(argv, ctx), capturing both streams; `onOutput` sees them as they come. */
export async function runCli(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  signal?: AbortSignal,
  onOutput?: (text: string) => void,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (t: string) => (onOutput?.(t), (stdout += t)), isTTY: false },
    stderr: { write: (t: string) => (onOutput?.(t), (stderr += t)), isTTY: false },
    env,
    signal,
  });
  return { code, stdout, stderr };
}

/**
 * Exit codes of a scenario run that reached no wrong verdict: 0, or 8 when the machine was too
 * busy for a variant's timing even after its retries (inconclusive, never a verdict).
 */
export const NO_WRONG_VERDICT: readonly number[] = [0, 8];

/** A scenario run's stderr without the notes of attempts run again because their timing was inconclusive. */
export const withoutRetryNotes = (stderr: string): string => stderr.replace(/^.*: inconclusive \(.*\); run \d+ of up to \d+\n/gm, '');
