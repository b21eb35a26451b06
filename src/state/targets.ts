import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CliError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { StoredTarget } from '../core/targets.js';
import { configDir, targetsFile } from './paths.js';
import { dropLineIndex } from './completion-cache.js';
import { readPrivate, writePrivate } from './private-file.js';

export { configDir, targetsFile } from './paths.js';

// The targets file: $XDG_CONFIG_HOME/redlock-cli/targets.json (default ~/.config), mode 0600 in a
// 0700 directory, because it may hold a password the user asked us to save.

type Env = Readonly<Record<string, string | undefined>>;

// zod loads only when there is a targets file to check: every connecting command looks for the
// current target, most machines have no file, and zod is a hundred modules of start-up for a
// one-shot `inspect` (its CommonJS build, so the load can stay synchronous).
const requireLazily = createRequire(import.meta.url);
let schema: ReturnType<typeof buildSchema> | undefined;

function buildSchema() {
  const { z } = requireLazily('zod') as typeof import('zod');
  const storedTarget = z.strictObject({
    url: z.string(),
    sentinel: z.string().optional(),
    masterName: z.string().optional(),
    cluster: z.string().optional(),
    tls: z
      .strictObject({ ca: z.string().optional(), cert: z.string().optional(), key: z.string().optional(), insecure: z.boolean().optional() })
      .optional(),
    auth: z.enum(['saved', 'ask', 'none']),
  });
  return z.strictObject({
    version: z.literal(1),
    /** `target use NAME`: where commands go when nothing on the command line or in REDIS_URL says. */
    current: z.string().optional(),
    targets: z.record(z.string(), storedTarget),
  });
}

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
    text = readPrivate(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { targets: {} };
    const why = (err as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symbolic link, which is never followed' : (err as Error).message;
    throw new CliError(`cannot read ${file}: ${why}`, ExitCode.unexpected);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON (${(err as Error).message}): fix or remove it`, ExitCode.unexpected);
  }
  schema ??= buildSchema();
  const result = schema.safeParse(parsed);
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

/** Replaces the file atomically, created 0600 whatever the old one's mode was. */
function writeTargetsFile(env: Env, { current, targets }: TargetsFile): void {
  const file = targetsFile(env);
  mkdirSync(configDir(env), { recursive: true, mode: 0o700 });
  const sorted = Object.fromEntries(Object.entries(targets).sort(([a], [b]) => a.localeCompare(b)));
  writePrivate(file, `${JSON.stringify({ version: 1, ...(current !== undefined ? { current } : {}), targets: sorted }, null, 2)}\n`);
  // A line's lock keys may now come from another server: Tab asks node again.
  dropLineIndex(env);
}
