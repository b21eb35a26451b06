import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { peekLock } from '../locks/peek.js';
import { protocolFor } from '../locks/registry.js';
import { rememberOwner } from '../state/owners.js';
import { noteAcrossNodes } from './across-nodes.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { lockTarget, openEnvFor } from './lock-setup.js';
import { describeCurrent } from './lock-output.js';
import { addConnectionOptions, addLockOptions, durationFlag, targetSpec, valuesFlag, type LockFlags } from './options.js';
import { queryHold, settleHold } from './remembered.js';

export function registerRenew(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('renew')
    .summary('extend the lease of a lock you hold')
    .argument('<key>', 'lock name')
    .option('--lease <duration>', 'the new lease, counted from now (default: the lease it was taken with, when remembered)')
    .option('--json', 'print the result as JSON');
  addLockOptions(cmd);
  addConnectionOptions(cmd);
  cmd.action(
    act(ctx, async (key: string, flags: LockFlags) => {
      const askedMs = durationFlag(flags.lease, '--lease');
      const spec = targetSpec(flags, ctx);
      const query = await queryHold(cmd, key, flags, (kind) => lockTarget(kind, spec, flags), ctx);
      const env = await openEnvFor(query.kind ?? 'reentrant', spec, flags, 'one-shot', ctx.connections);
      try {
        const hold = await settleHold(env, key, query, 'go-on');
        const leaseMs = askedMs ?? hold.remembered?.leaseMs;
        if (leaseMs === undefined) throw new UsageError(`renew needs --lease <duration>: no lease of "${safeText(key)}" is remembered on this machine`);
        const renewed = await protocolFor(hold.kind).renew(env, { key, owner: hold.owner, leaseMs, values: valuesFlag(flags, hold.kind, false) });
        if (flags.json) printJson(ctx, { key, kind: hold.kind, owner: hold.owner, renewed, leaseMs });
        if (!renewed) {
          const expiredAgo = hold.remembered ? Date.now() - hold.remembered.expiresAt : undefined;
          if (!flags.json) note(ctx, `not renewed: ${hold.owner} does not hold it; ${describeCurrent(key, await peekLock(env, key), expiredAgo)}`);
          return ExitCode.notAcquired;
        }
        const target = lockTarget(hold.kind, spec, flags);
        await rememberOwner(ctx.env, {
          target,
          key,
          kind: hold.kind,
          owner: hold.owner,
          leaseMs,
          expiresAt: Date.now() + leaseMs,
          token: hold.remembered?.token,
        }, (line) => note(ctx, line));
        ctx.emit?.({ type: 'lock-renewed', key, kind: hold.kind, owner: hold.owner, target, leaseMs, at: Date.now() });
        if (!flags.json) print(ctx, `renewed "${safeText(key)}": lease ${formatDuration(leaseMs)} from now`);
        if (!flags.json && hold.kind === 'redlock') await noteAcrossNodes(ctx, env.nodes, key); // which nodes hold it now
        return ExitCode.ok;
      } finally {
        await env.close();
      }
    }),
  );
}
