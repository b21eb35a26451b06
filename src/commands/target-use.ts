import { NotFoundError, UsageError } from '../core/errors.js';
import type { Endpoint } from '../core/endpoint.js';
import { maskUrl, storedEndpoint, targetPasswordEnv, type StoredTarget } from '../core/targets.js';
import { loadTargets, targetsFile } from '../state/targets.js';
import type { RunContext } from './context.js';
import { promptPassword, rawTerminal } from './password-prompt.js';

// `--target <name>` (or the current target) on every command that connects: the saved target
// becomes the endpoint the resolver starts from, its password found here.

/** A saved target by name, or exit 4 naming the ones there are. */
export function findTarget(ctx: RunContext, name: string): StoredTarget {
  const targets = loadTargets(ctx.env);
  const target = targets[name];
  if (target) return target;
  const known = Object.keys(targets);
  throw new NotFoundError(
    known.length === 0
      ? `no target "${name}": none saved yet (redlock-cli target add ${name} <url>)`
      : `no target "${name}" in ${targetsFile(ctx.env)} (saved: ${known.join(', ')})`,
  );
}

/** The target's endpoint with its password: env var, saved password, REDISCLI_AUTH or the terminal, in that order. */
export async function targetEndpoint(ctx: RunContext, name: string): Promise<Endpoint> {
  const target = findTarget(ctx, name);
  const ep = storedEndpoint(target);
  const envName = targetPasswordEnv(name);
  const fromEnv = ctx.env[envName];
  if (fromEnv) return { ...ep, password: fromEnv, passwordFrom: 'env' };
  if (target.auth !== 'ask') return { ...ep, ...(ep.password !== undefined ? { passwordFrom: 'target' as const } : {}) };
  if (ctx.env.REDISCLI_AUTH) return { ...ep, password: ctx.env.REDISCLI_AUTH, passwordFrom: 'env' };
  const terminal = rawTerminal(ctx);
  if (!terminal) {
    throw new UsageError(
      `target "${name}" needs a password: set ${envName} (or REDISCLI_AUTH), or run on a terminal to type it; ` +
        `\`target add ${name} <url> --save-password\` stores it instead`,
    );
  }
  const password = await promptPassword(ctx, terminal, `Password for target "${name}" (${maskUrl(target.url)}): `);
  if (password === '') throw new UsageError(`no password typed for target "${name}"`);
  return { ...ep, password, passwordFrom: 'prompt' };
}
