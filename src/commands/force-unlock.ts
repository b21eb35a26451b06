import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { escapeControls } from '../core/decode/escape.js';
import { NotAcquiredError, NotFoundError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { lockKindOf } from '../locks/family.js';
import { peekLock } from '../locks/peek.js';
import { parseKind, protocolFor } from '../locks/registry.js';
import { confirm } from './confirm.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { lockTarget, openEnvFor } from './lock-setup.js';
import { describeCurrent } from './lock-output.js';
import { addConnectionOptions, addLockOptions, checkKeyName, targetSpec, type LockFlags } from './options.js';

interface ForceFlags extends LockFlags {
  readonly yes?: boolean;
}

export function registerForceUnlock(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('force-unlock')
    .summary("break-glass: delete a lock whoever holds it, and wake its waiters like Redisson's forceUnlock")
    .argument('<key>', 'lock name')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .option('--json', 'print the result as JSON');
  addLockOptions(cmd);
  addConnectionOptions(cmd);
  cmd.action(
    act(ctx, async (key: string, flags: ForceFlags) => {
      checkKeyName(key);
      const spec = targetSpec(flags, ctx);
      const explicitKind = cmd.getOptionValueSource('kind') === 'cli' ? parseKind(flags.kind) : undefined;
      const env = await openEnvFor(explicitKind ?? 'reentrant', spec, flags, 'one-shot', ctx.connections);
      try {
        // Decided as inspect decides: what it does not call a lock of this family is never deleted,
        // but for the break glass: a string that could be a token lock set without expiry, under
        // a --kind token the user typed.
        const { kind, raws } = await lockKindOf(env, key, { kind: explicitKind, breakGlass: true });
        if (!kind || raws.every((r) => r.type === 'none')) throw new NotFoundError(`nothing to unlock: "${escapeControls(key)}" does not exist`);
        const peek = await peekLock(env, key);
        if (!flags.yes) {
          const ok = await confirm(
            ctx,
            // The state, then the question: "Force-unlock ... with no TTL: ...?" read as a question about the TTL.
            `${describeCurrent(key, peek)}. Force-unlock it?`,
            'force-unlock deletes a lock you may not own: pass --yes to confirm (there is no terminal to ask on)',
          );
          if (!ok) throw new NotAcquiredError('not unlocked: cancelled');
        }
        const deleted = await protocolFor(kind).forceUnlock(env, key);
        if (deleted && ctx.emit) ctx.emit({ type: 'lock-force-unlocked', key, kind, target: lockTarget(kind, spec, flags), at: Date.now() });
        if (flags.json) printJson(ctx, { key, kind, deleted, previousHolders: peek.holders });
        else if (deleted) print(ctx, `force-unlocked "${safeText(key)}" (${kind}); waiters were notified`);
        else note(ctx, `"${safeText(key)}" was not a ${kind} lock in that state: nothing was deleted`);
        return deleted ? ExitCode.ok : ExitCode.notAcquired;
      } finally {
        await env.close();
      }
    }),
  );
}
