import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { formatWho, whoNotes } from '../core/who/text.js';
import { describeTarget } from '../redis/target.js';
import { loadOwnerDirectory } from '../state/owner-directory.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { prose } from './help-text.js';
import { addConnectionOptions, checkKeyName, durationFlag, targetSpec, type ConnectionFlags } from './options.js';

interface WhoFlags extends ConnectionFlags {
  readonly sample: string;
  readonly full?: boolean;
  readonly json?: boolean;
}

const HELP = `
For each lock (decoded as inspect decodes it): its holders and waiters, each tied to a server
connection (address, CLIENT SETNAME name, lib-name and lib-ver, connection age and idle time from
CLIENT LIST), and how that was learned: seen writing its owner id in a MONITOR sample, remembered
from an earlier \`trace\` (the owner directory in the state folder), or the label the library stores
(ShedLock's host). Waiters are the fair queue's members and every connection seen trying the lock in
the sample; subscribers are counted on the lock's channels (PUBSUB NUMSUB). Then liveness (a holder
whose connection is gone: when the lease frees it, or which connection still renews it: a zombie
renewer) and the blocked-by chains across locks (A waits for B, who waits for C).

The sample runs for --sample (default 10s: Redisson's default watchdog renews every 10 s) and ends
early, after at least 1 s, once every holder and queued waiter is resolved; --full samples the whole
period (pollers that retry rarely). Read-only: MONITOR, CLIENT LIST, PUBSUB CHANNELS and inspect's
reads. A user without +monitor or +client|list gets what the rest can tell, and a line saying what
is missing and which rule would give it.

--json prints one document: locks[] {key, kind, library, ttlMs, holders[] {owner, connection {addr,
name, libName, libVer, ageMs, idleMs, gone}, via (monitor | trace-memory | owner-label), label,
renewers[], liveness {state (alive | gone | zombie-renewer | unresolved | unknown), freesInMs,
renewer}}, waiters[] {owner, connection, via, position}, subscribers {count, connections[], exact}},
chains[] {waiter, links[] {lock, holder}, cycle}, sample {ms, endedEarly}, limits[], readAt.

Exits 4 when a named key does not exist (the others are still shown), 0 otherwise.

Examples:
  redlock-cli who orders
  redlock-cli who 'orders:*' --sample 30s
  redlock-cli who --json > who.json`;

const GLOB = /[*?[]/;

export function registerWho(program: Command, ctx: CommandContext): Command {
  const cmd = program
    .command('who')
    .summary('who holds each lock and who waits: connections, how they were learned, liveness, blocked-by chains (read-only)')
    .argument('[key|pattern]', 'a lock name, or a glob of lock names (default: every lock)')
    .option('--sample <duration>', 'the longest the MONITOR sample runs', '10s')
    .option('--full', 'sample the whole --sample period, even once everyone is resolved')
    .option('--json', 'print one JSON document (shape below)')
    .addHelpText('after', prose(ctx, HELP));
  addConnectionOptions(cmd, { pubsub: false }); // read-only: never notifies
  cmd.action(
    act(ctx, async (arg: string | undefined, flags: WhoFlags) => {
      if (arg !== undefined) checkKeyName(arg);
      const sampleMs = durationFlag(flags.sample, '--sample') ?? 0;
      if (sampleMs > 600_000) throw new UsageError(`--sample ${flags.sample} is too long: who is bounded to 10m; for longer, run trace`);
      const spec = targetSpec(flags, ctx);
      const target = arg === undefined ? { pattern: '*' } : GLOB.test(arg) ? { pattern: arg } : { keys: [arg] };
      const remembered = loadOwnerDirectory(ctx.env).filter((e) => e.target === describeTarget(spec));
      const { runWho } = await import('../trace/who.js');
      const report = await runWho({ spec, target, sampleMs, full: flags.full, remembered, signal: ctx.signal, onStatus: (text) => note(ctx, `who: ${text}`) });
      ctx.emit?.({ type: 'who-report', target: describeTarget(spec), report });
      const missing = 'keys' in target && report.locks.length === 0;
      if (flags.json) printJson(ctx, report);
      else if (!missing) for (const line of formatWho(report)) print(ctx, line);
      for (const line of whoNotes(report)) note(ctx, `who: ${line}`);
      if (missing) note(ctx, `who: ${arg} is not a lock here (no such key, or not a lock): check the name with ls`);
      return missing ? ExitCode.notFound : ExitCode.ok;
    }),
  );
  return cmd;
}
