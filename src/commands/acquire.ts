import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { formatDuration } from '../core/duration.js';
import { ExitCode } from '../core/exit-codes.js';
import { UnreachableError } from '../core/errors.js';
import { shellQuote } from '../core/doctor-fix.js';
import { lockKindOf } from '../locks/family.js';
import { protocolFor } from '../locks/registry.js';
import type { Attempt, LockKind, LockSetup } from '../locks/types.js';
import { rememberOwner } from '../state/owners.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { paintFor } from './colour.js';
import { waitStatusLine } from './wait-status.js';
import { describeRefusal, formatVotes, withAllVotes } from './lock-output.js';
import { addConnectionOptions, addLockOptions, redlockNodesOf, targetSpec, type LockFlags } from './options.js';
import { lockSetup, lockTarget, openEnvFor } from './lock-setup.js';
import { replayArgs } from './connection-flags.js';
import { endpointUrl } from '../core/endpoint.js';
import type { JsonOf } from '../core/contracts/index.js';
import type { acquireJson } from '../core/contracts/locks.js';

/**
 * `redlock-cli <command> <key>` on the same lock and server as this command: --kind, the Redlock
 * nodes and the connection options, password-free, so the hint works when pasted.
 */
export function sameLockCommand(command: string, kind: LockKind, key: string, flags: LockFlags, self: Command): string {
  // The nodes this line locked on (typed, a Redlock sandbox's or the REPL's), so the hint names them too.
  const nodes = kind === 'redlock' ? redlockNodesOf(flags)?.map((n) => endpointUrl(n, 'drop')).join(',') : undefined;
  const words = [
    'redlock-cli', command, key,
    ...(kind === 'reentrant' ? [] : ['--kind', kind]),
    ...(nodes !== undefined ? ['--nodes', nodes] : []),
    ...replayArgs(self),
  ];
  return words.map((w, i) => (i < 2 ? w : shellQuote(w))).join(' ');
}

export function attemptJson(setup: LockSetup, attempt: Attempt): JsonOf<typeof acquireJson> {
  const base = { key: setup.key, kind: setup.kind, owner: setup.owner, leaseMs: setup.leaseMs };
  if (attempt.acquired) {
    return {
      acquired: true,
      ...base,
      count: attempt.count,
      ...(attempt.token !== undefined ? { token: attempt.token } : {}),
      ...(attempt.votes ? { votes: attempt.votes, validityMs: attempt.validityMs } : {}),
    };
  }
  return { acquired: false, ...base, ttlMs: attempt.ttlMs, holders: attempt.holders, ...(attempt.votes ? { votes: attempt.votes } : {}) };
}

export function registerAcquire(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('acquire')
    .summary('take a lock once, or wait for it, and leave it held for its lease')
    .argument('<key>', 'lock name (the Redis key)')
    .option('--lease <duration>', 'lease: how long the lock lives unless renewed (default 30s; --kind spring 60s, as RedisLockRegistry)')
    .option('--wait <duration>', 'wait up to this long like the real library does (default: one attempt)')
    .option('--json', 'print the result as JSON');
  addLockOptions(cmd);
  addConnectionOptions(cmd);
  cmd.action(act(ctx, async (key: string, flags: LockFlags, self: Command) => {
    const setup = lockSetup(key, flags, undefined, ctx.identity);
    const spec = targetSpec(flags, ctx);
    const target = lockTarget(setup.kind, spec, flags);
    const env = await openEnvFor(setup.kind, spec, flags, 'one-shot', ctx.connections);
    try {
      await lockKindOf(env, key, { kind: setup.kind });
      const protocol = protocolFor(setup.kind);
      const req = { key, owner: setup.owner, leaseMs: setup.leaseMs, values: setup.values };
      const status = setup.waitMs > 0 ? waitStatusLine(ctx, key) : undefined;
      const remember = (expiresAt: number, token?: number): Promise<void> =>
        rememberOwner(ctx.env, { target, key, kind: setup.kind, owner: setup.owner, leaseMs: setup.leaseMs, expiresAt, token }, (line) => note(ctx, line));
      const attempt = await withAllVotes(
        await (status
          ? protocol.acquire(env, req, { waitMs: setup.waitMs, signal: ctx.signal, onRefused: status.onRefused }).finally(() => status.stop())
          : protocol.tryAcquire(env, req)
        ).catch(async (err: unknown) => {
          // No answer (a paused or overloaded server, a dropped connection): the attempt may
          // still be applied once Redis catches up, and then nobody but us could name its owner.
          if (err instanceof UnreachableError) {
            note(ctx, `if Redis applies this acquire late, "${safeText(key)}" is held by ${safeText(setup.owner)} for up to ${formatDuration(setup.leaseMs)}: remembered, so \`redlock-cli release\` finds it`);
            await remember(Date.now() + setup.leaseMs);
          }
          throw err;
        }),
      );
      if (flags.json) printJson(ctx, attemptJson(setup, attempt));
      if (attempt.votes && !flags.json) for (const line of formatVotes(attempt.votes)) note(ctx, line);
      if (!attempt.acquired) {
        if (!flags.json) note(ctx, paintFor(ctx, 'stderr').warning(describeRefusal(key, attempt)));
        return ExitCode.notAcquired;
      }
      ctx.emit?.({ type: 'lock-acquired', key, kind: setup.kind, owner: setup.owner, target, leaseMs: setup.leaseMs, at: Date.now() });
      if (!flags.json) {
        const extra = [
          attempt.count > 1 ? `hold count ${attempt.count}` : '',
          attempt.token !== undefined ? `token ${attempt.token}` : '',
          attempt.validityMs !== undefined ? `valid for ${formatDuration(attempt.validityMs)}` : '',
        ].filter((s) => s !== '');
        const paint = paintFor(ctx, 'stdout');
        print(ctx, `acquired "${paint.key(safeText(key))}" (${setup.kind}) as ${paint.holder(safeText(setup.owner))}, lease ${formatDuration(setup.leaseMs)}${extra.length ? `, ${extra.join(', ')}` : ''}`);
      }
      // After the owner is printed: a state directory that cannot be used costs one line, not the result.
      await remember(Date.now() + setup.leaseMs, attempt.token);
      if (!flags.json) note(ctx, `release it with: ${sameLockCommand('release', setup.kind, key, flags, self)}`);
      return ExitCode.ok;
    } finally {
      await env.close();
    }
  }));
}
