import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { peekLock } from '../locks/peek.js';
import { protocolFor } from '../locks/registry.js';
import { rememberOwner } from '../state/owners.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { lockTarget, openEnvFor } from './acquire.js';
import { describeCurrent } from './lock-output.js';
import { addConnectionOptions, addLockOptions, durationFlag, targetSpec, type LockFlags } from './options.js';
import { resolveHold } from './remembered.js';

export function registerRenew(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('renew')
    .summary('extend the lease of a lock you hold')
    .argument('<key>', 'lock name')
    .requiredOption('--lease <duration>', 'the new lease, counted from now (e.g. 30s)')
    .option('--json', 'print the result as JSON');
  addLockOptions(cmd);
  addConnectionOptions(cmd);
  cmd.action(
    act(ctx, async (key: string, flags: LockFlags) => {
      const leaseMs = durationFlag(flags.lease, '--lease');
      if (leaseMs === undefined) throw new UsageError('renew needs --lease <duration>');
      const spec = targetSpec(flags, ctx);
      const hold = resolveHold(cmd, key, flags, (kind) => lockTarget(kind, spec, flags), ctx);
      const env = await openEnvFor(hold.kind, spec, flags, 'one-shot', ctx.connections);
      try {
        const renewed = await protocolFor(hold.kind).renew(env, { key, owner: hold.owner, leaseMs });
        if (flags.json) printJson(ctx, { key, kind: hold.kind, owner: hold.owner, renewed, leaseMs });
        if (!renewed) {
          const expiredAgo = hold.remembered ? Date.now() - hold.remembered.expiresAt : undefined;
          if (!flags.json) note(ctx, `not renewed: ${hold.owner} does not hold it; ${describeCurrent(key, await peekLock(env, key), expiredAgo)}`);
          return ExitCode.notAcquired;
        }
        rememberOwner(ctx.env, {
          target: lockTarget(hold.kind, spec, flags),
          key,
          kind: hold.kind,
          owner: hold.owner,
          leaseMs,
          expiresAt: Date.now() + leaseMs,
          token: hold.remembered?.token,
        });
        if (!flags.json) print(ctx, `renewed "${safeText(key)}": lease ${formatDuration(leaseMs)} from now`);
        return ExitCode.ok;
      } finally {
        await env.close();
      }
    }),
  );
}
