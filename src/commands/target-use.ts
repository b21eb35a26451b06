import type { Command } from 'commander';
import { NotFoundError, UsageError } from '../core/errors.js';
import { maskUrl, targetPasswordEnv, withPassword, type StoredTarget } from '../core/targets.js';
import { loadTargets, targetsFile } from '../state/targets.js';
import type { RunContext } from './context.js';
import { promptPassword, rawTerminal } from './password-prompt.js';

// `--target <name>` (or the current target) on every command that connects: before the action
// runs, the saved target is written into the command's own --url / --sentinel / --master-name /
// --cluster values, so targetSpec() and everything after it see an ordinary connection.

const CONNECTION_FLAGS = ['url', 'sentinel', 'masterName', 'cluster'] as const;
const FLAG_NAMES: Record<(typeof CONNECTION_FLAGS)[number], string> = {
  url: '--url',
  sentinel: '--sentinel',
  masterName: '--master-name',
  cluster: '--cluster',
};

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

/** The URL to connect with: env var, saved password, REDISCLI_AUTH or the terminal, in that order. */
export async function targetUrl(ctx: RunContext, name: string, target: StoredTarget): Promise<string> {
  const envName = targetPasswordEnv(name);
  const fromEnv = ctx.env[envName];
  if (fromEnv) return withPassword(target.url, fromEnv);
  if (target.auth !== 'ask') return target.url;
  if (ctx.env.REDISCLI_AUTH) return withPassword(target.url, ctx.env.REDISCLI_AUTH);
  const terminal = rawTerminal(ctx);
  if (!terminal) {
    throw new UsageError(
      `target "${name}" needs a password: set ${envName} (or REDISCLI_AUTH), or run on a terminal to type it; ` +
        `\`target add ${name} <url> --save-password\` stores it instead`,
    );
  }
  const password = await promptPassword(ctx, terminal, `Password for target "${name}" (${maskUrl(target.url)}): `);
  if (password === '') throw new UsageError(`no password typed for target "${name}"`);
  return withPassword(target.url, password);
}

/** Resolves a saved target (from `--target` or `target use`) into the command's connection values. */
export async function applyTargetOption(cmd: Command, ctx: RunContext, name: string): Promise<void> {
  const given = CONNECTION_FLAGS.filter((flag) => cmd.getOptionValueSource(flag) === 'cli');
  if (given.length > 0) {
    throw new UsageError(`--target ${name} already says where to connect: drop ${given.map((f) => FLAG_NAMES[f]).join(' and ')}`);
  }
  const target = findTarget(ctx, name);
  cmd.setOptionValueWithSource('url', await targetUrl(ctx, name, target), 'config');
  if (target.sentinel) cmd.setOptionValueWithSource('sentinel', target.sentinel, 'config');
  if (target.masterName) cmd.setOptionValueWithSource('masterName', target.masterName, 'config');
  if (target.cluster) cmd.setOptionValueWithSource('cluster', target.cluster, 'config');
}
