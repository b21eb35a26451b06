import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { closeLockEnv } from '../locks/env.js';
import { lockKindOf } from '../locks/family.js';
import { MIN_WATCHDOG_LEASE_MS, WATCHDOG_LEASE_MS } from '../locks/watchdog.js';
import { CLOSE_TIMEOUT_MS } from '../redis/close.js';
import { lockSetup, lockTarget, openEnvFor } from './lock-setup.js';
import { act, note, type CommandContext } from './context.js';
import { liveOutput, lineOutput, wantsLiveView, type HoldOutput } from './hold-output.js';
import { rememberWhileHeld } from '../hold/memory.js';
import { EXIT_CANNOT_RUN, RELEASE_TIMEOUT_MS, runHold, type HoldPlan } from '../hold/session.js';
import { reportingTo } from './hold-report.js';
import { addConnectionOptions, addLockOptions, durationFlag, targetSpec, type LockFlags } from './options.js';
import { prose } from './help-text.js';

export const DEFAULT_KILL_GRACE_MS = 3000;

interface HoldFlags extends LockFlags {
  readonly watchdog?: string;
  readonly for?: string;
  readonly killGrace?: string;
}

const HELP = `
Without --lease a watchdog renews the lease every lease/3 like Redisson's (30 s lease, renewed
every 10 s; change the lease with --watchdog). With --lease the lease is fixed: the hold ends
when it runs out. A cheap ownership check runs every min(1 s, lease/3), so a force-unlock is
noticed within a second.

With a command (after --) the lock is held while it runs; it sees REDLOCK_KEY, REDLOCK_OWNER,
REDLOCK_KIND and, for fenced locks, REDLOCK_TOKEN, but not REDISCLI_AUTH, REDIS_PASSWORD,
REDLOCK_PASSWORD_* or a REDIS_URL with a password. If the lock is lost the command's process
group gets SIGTERM, then SIGKILL after --kill-grace. It never runs without the lock: if hold
cannot confirm the lease (stopped with Ctrl-Z, hung), the command gets SIGTERM shortly before
the lease ends and SIGKILL when it does; background jobs left in its group when it exits are
stopped before the release. Its output is passed through; event lines then go to stderr so its
stdout stays clean.

On a terminal a live view shows the lease; otherwise one line per event (NDJSON with --json).
Ctrl-C or SIGTERM stops the command, releases the lock and exits 130.

Exit codes for hold: 0 released (or a fixed lease ran out), 5 not acquired or lost, 130
interrupted; with a command, its own exit code (${EXIT_CANNOT_RUN} if it could not be started, 1 if
the process guarding it died: hold then stops its group itself before releasing).

Examples:
  redlock-cli hold orders --for 30s
  redlock-cli hold orders --lease 10s --json
  redlock-cli hold nightly-report --wait 1m -- ./report.sh --full`;

export function registerHold(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('hold')
    .summary('take a lock and keep it: watchdog renewal, live view, or run a command under it')
    .argument('<key>', 'lock name (the Redis key)')
    .argument('[command...]', 'command to run while the lock is held (put it after --)')
    .option('--lease <duration>', 'fixed lease, never renewed: the hold ends when it runs out')
    .option('--watchdog <duration>', `watchdog lease, renewed every third of it (default ${WATCHDOG_LEASE_MS / 1000}s)`)
    .option('--wait <duration>', 'wait up to this long for the lock (default: one attempt)')
    .option('--for <duration>', 'hold this long, then release and exit 0')
    .option('--kill-grace <duration>', `after SIGTERM, SIGKILL the command if it is still running (default ${DEFAULT_KILL_GRACE_MS / 1000}s)`)
    .option('--json', 'NDJSON event lines instead of the live view')
    .addHelpText('after', prose(ctx, HELP));
  addLockOptions(cmd);
  addConnectionOptions(cmd);
  cmd.action(
    act(ctx, async (key: string, command: string[], flags: HoldFlags) => {
      if (flags.lease !== undefined && flags.watchdog !== undefined) {
        throw new UsageError('use either --lease (fixed, never renewed) or --watchdog (renewed), not both');
      }
      const watchdogMs = durationFlag(flags.watchdog, '--watchdog', { minMs: MIN_WATCHDOG_LEASE_MS }) ?? WATCHDOG_LEASE_MS;
      const plan: HoldPlan = {
        setup: lockSetup(key, flags, watchdogMs, ctx.identity),
        mode: flags.lease !== undefined ? 'fixed' : 'watchdog',
        forMs: durationFlag(flags.for, '--for'),
        killGraceMs: durationFlag(flags.killGrace, '--kill-grace') ?? DEFAULT_KILL_GRACE_MS,
        command,
      };
      // Stopping in order after a signal: the command's grace, then one release, then closing.
      ctx.interruptGrace?.extend(plan.killGraceMs + RELEASE_TIMEOUT_MS + CLOSE_TIMEOUT_MS + 1000);
      const spec = targetSpec(flags, ctx);
      const lines = { key, kind: plan.setup.kind, owner: plan.setup.owner, mode: plan.mode };
      const json = flags.json === true;
      const env = await openEnvFor(plan.setup.kind, spec, flags, 'long-lived', ctx.connections);
      let out: HoldOutput | undefined;
      let unresponsive = false;
      try {
        await lockKindOf(env, key, { kind: plan.setup.kind });
        const target = lockTarget(plan.setup.kind, spec, flags);
        const shown = wantsLiveView(ctx, json) ? await liveOutput(ctx, lines, target) : lineOutput(ctx, lines, { json, withChild: command.length > 0 });
        const lock = { target, key, kind: plan.setup.kind, owner: plan.setup.owner };
        out = rememberWhileHeld(reportingTo(ctx, shown, lock), { env: ctx.env, warn: (line) => note(ctx, line) }, lock);
        const result = await runHold(ctx, env, plan, out);
        unresponsive = result.unresponsive === true;
        await out.close();
        out = undefined;
        if (result.message) note(ctx, result.message);
        return result.exitCode;
      } finally {
        await out?.close();
        await closeLockEnv(env, unresponsive ? 0 : CLOSE_TIMEOUT_MS);
      }
    }),
  );
}
