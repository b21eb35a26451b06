import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { ExitCode } from '../core/exit-codes.js';
import { peekLock } from '../locks/peek.js';
import { protocolFor } from '../locks/registry.js';
import type { LockEnv, LockKind, LockRequest, ReleaseOutcome } from '../locks/types.js';
import { forgetOwner } from '../state/owners.js';
import { noteAcrossNodes } from './across-nodes.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { describeCurrent } from './lock-output.js';
import { lockTarget, openEnvFor } from './lock-setup.js';
import { addConnectionOptions, addLockOptions, targetSpec, valuesFlag, type LockFlags } from './options.js';
import { queryHold, settleHold } from './remembered.js';

// Enough for any real re-entry depth; stops a runaway loop if a server kept answering "decremented".
const MAX_HOLDS = 10_000;

interface ReleaseFlags extends LockFlags {
  readonly allHolds?: boolean;
}

export function registerRelease(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('release')
    .summary('release a lock you hold (one re-entrant hold, or all with --all-holds)')
    .argument('<key>', 'lock name')
    .option('--all-holds', 'release every re-entrant hold of this owner, not just one')
    .option('--json', 'print the result as JSON');
  addLockOptions(cmd);
  addConnectionOptions(cmd);
  cmd.action(
    act(ctx, async (key: string, flags: ReleaseFlags) => {
      const spec = targetSpec(flags, ctx);
      const query = await queryHold(cmd, key, flags, (kind) => lockTarget(kind, spec, flags), ctx);
      const env = await openEnvFor(query.kind ?? 'reentrant', spec, flags, 'one-shot', ctx.connections);
      try {
        const hold = await settleHold(env, key, query, 'not-found');
        const target = lockTarget(hold.kind, spec, flags);
        const req: LockRequest = { key, owner: hold.owner, leaseMs: hold.leaseMs, values: valuesFlag(flags, hold.kind, false) };
        const { outcome, released } = await releaseHolds(env, hold.kind, req, flags.allHolds === true);
        const fullyGone = outcome === 'released' || (flags.allHolds === true && released > 0);
        if (fullyGone) await forgetOwner(ctx.env, { target, key, owner: hold.owner }, (line) => note(ctx, line));
        if (released > 0) ctx.emit?.({ type: 'lock-released', key, kind: hold.kind, owner: hold.owner, target, gone: fullyGone, at: Date.now() });
        if (flags.json) printJson(ctx, { key, kind: hold.kind, owner: hold.owner, outcome, holdsReleased: released });
        if (released === 0) {
          const expiredAgo = hold.remembered ? Date.now() - hold.remembered.expiresAt : undefined;
          if (!flags.json) note(ctx, `not released: ${hold.owner} does not hold it; ${describeCurrent(key, await peekLock(env, key), expiredAgo)}`);
          return ExitCode.notAcquired;
        }
        if (!flags.json) print(ctx, releaseMessage(key, outcome, released));
        if (!flags.json && hold.kind === 'redlock') await noteAcrossNodes(ctx, env.nodes, key); // a copy left is a node that refused
        return ExitCode.ok;
      } finally {
        await env.close();
      }
    }),
  );
}

/** Releases one hold, or with `all` keeps releasing until this owner has none left. */
async function releaseHolds(env: LockEnv, kind: LockKind, req: LockRequest, all: boolean) {
  const protocol = protocolFor(kind);
  let outcome: ReleaseOutcome = await protocol.release(env, req);
  let released = outcome === 'not-owner' ? 0 : 1;
  while (all && outcome === 'decremented' && released < MAX_HOLDS) {
    const next = await protocol.release(env, req);
    if (next === 'not-owner') break; // a read lock answers "decremented" while other readers remain
    outcome = next;
    released += 1;
  }
  return { outcome, released };
}

function releaseMessage(key: string, outcome: ReleaseOutcome, released: number): string {
  if (outcome === 'released') return `released "${safeText(key)}"${released > 1 ? ` (${released} holds)` : ''}`;
  return released > 1
    ? `released ${released} holds of "${safeText(key)}"; the lock is still held by others`
    : `released one hold of "${safeText(key)}"; it is still held (re-entrant holds or other readers remain)`;
}
