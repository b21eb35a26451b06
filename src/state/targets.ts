import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { CliError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { StoredTarget } from '../core/targets.js';
import { configDir, targetsFile } from './paths.js';

export { configDir, targetsFile } from './paths.js';

// The targets file: $XDG_CONFIG_HOME/redlock-cli/targets.json (default ~/.config), mode 0600 in a
// 0700 directory, because it may hold a password the user asked us to save.

type Env = Readonly<Record<string, string | undefined>>;

const storedTarget = z.strictObject({
  url: z.string(),
  sentinel: z.string().optional(),
  masterName: z.string().optional(),
  cluster: z.string().optional(),
  auth: z.enum(['saved', 'ask', 'none']),
});

const fileSchema = z.strictObject({
  version: z.literal(1),
  /** `target use NAME`: where commands go when nothing on the command line or in REDIS_URL says. */
  current: z.string().optional(),
  targets: z.record(z.string(), storedTarget),
});

export type Targets = Readonly<Record<string, StoredTarget>>;

interface TargetsFile {
  readonly current?: string | undefined;
  readonly targets: Targets;
}

/** Reads every saved target; a missing file is an empty set, a damaged one an error naming the file. */
export function loadTargets(env: Env): Targets {
  return readTargetsFile(env).targets;
}

/** The target `target use` chose, if it is still saved. */
export function loadCurrentTarget(env: Env): string | undefined {
  const { current, targets } = readTargetsFile(env);
  return current !== undefined && targets[current] ? current : undefined;
}

function readTargetsFile(env: Env): TargetsFile {
  const file = targetsFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { targets: {} };
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, ExitCode.unexpected);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON (${(err as Error).message}): fix or remove it`, ExitCode.unexpected);
  }
  const result = fileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CliError(`${file}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'unexpected content'}: fix or remove it`, ExitCode.unexpected);
  }
  return { current: result.data.current, targets: result.data.targets as Targets };
}

/** Replaces the saved targets, keeping the current one while it still exists. */
export function saveTargets(env: Env, targets: Targets): void {
  const { current } = readTargetsFile(env);
  writeTargetsFile(env, { current: current !== undefined && targets[current] ? current : undefined, targets });
}

/** `target use NAME` (or none: back to REDIS_URL and the default). */
export function saveCurrentTarget(env: Env, current: string | undefined): void {
  writeTargetsFile(env, { current, targets: readTargetsFile(env).targets });
}

/** Replaces the file atomically, created 0600 (and forced to 0600 should the old one have been wider). */
function writeTargetsFile(env: Env, { current, targets }: TargetsFile): void {
  const file = targetsFile(env);
  mkdirSync(configDir(env), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const sorted = Object.fromEntries(Object.entries(targets).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(tmp, `${JSON.stringify({ version: 1, ...(current !== undefined ? { current } : {}), targets: sorted }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // the umask could only narrow it, but a reused tmp name would keep its old mode
  renameSync(tmp, file);
}
