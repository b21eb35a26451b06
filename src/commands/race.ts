import type { Command } from 'commander';
import { escapeControls } from '../core/decode/escape.js';
import { describeEndpoint } from '../core/endpoint.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { optionalCount, parseCount } from '../core/count.js';
import { checkRacePlan, CHAOS_VERBS, MAX_CLIENTS, HOLD_DISTS, RACE_KINDS, RELEASE_MODES, type RacePlan, type RaceTarget } from '../core/race/plan.js';
import { procsBounds } from '../race/proc-limit.js';
import { runRace, type RaceMonitor } from '../race/run.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { checkKeyName, durationFlag, nodesOption, redisServerOption, type ConnectionFlags } from './options.js';
import { declareConnectionOptions, resolvedConnection } from './connection-flags.js';
import { confirm } from './confirm.js';
import { raceJson, raceSummary } from './race/output.js';
import { widthOf } from '../core/text-layout.js';
import { prose } from './help-text.js';
import { addHtmlOption, checkReportPath, writeReport } from './report-file.js';

interface RaceFlags extends ConnectionFlags {
  readonly kind: string;
  readonly clients: string;
  readonly procs?: string;
  readonly duration: string;
  readonly lease: string;
  readonly hold: string;
  readonly holdDist: string;
  readonly wait: string;
  readonly release: string;
  readonly renew: boolean;
  readonly chaos?: string;
  readonly chaosEvery?: string;
  readonly chaosFor?: string;
  readonly nodes?: string;
  readonly redisServer?: string;
  readonly json?: boolean;
  readonly html?: string;
  readonly yes?: boolean;
}

const HELP = `
Every client has its own connection and owner and loops: acquire (waiting up to --wait), enter
the critical section, read the demo counter, hold, write it back + 1, write a fenced register,
leave, release. The demo resource lives in this process (not in the Redis under test), so no
fault can roll it back: with a safe lock the counter equals the acquisitions. The history of
every step goes through the same checker as the scenarios (mutual exclusion, stale holders,
stale writes, lost updates).

Where: with no connection option, saved target or REDIS_URL the race starts a sandbox of the
topology it needs (single; sentinel for failover; three primaries for redlock; with the fault
proxy for latency and partition) and stops it afterwards; --sandbox races on one that is up. Any
other target (-u, -h/-p, --sentinel, --cluster, --target, REDIS_URL, TLS options as every command
takes them) is your own server: race asks first (--yes when not on a terminal), refuses keys
that already exist there (a lock's companions too, such as a fenced lock's counter), and sends
no server fault: only --chaos pause and kill-holder, which act on its own clients.

Chaos: pause freezes a client holding the lock (with --procs: SIGSTOP of its worker process),
kill-holder crashes it (its sockets drop, a new client takes its place), failover promotes a
replica, latency slows the node by a lease per round trip, clock jumps its clock by two leases,
partition cuts its clients off.

Unsafe on purpose: --release naive-del (DEL whoever holds it), --no-renew with a --lease shorter
than --hold, or an --hold-dist exp whose tail outlives the lease.

The race judges its own harness: when its timers ran later than the lease allows (a renewal
later than two thirds of the lease, or without renewals a hold past the lease's end), violations
that lateness can explain make the run inconclusive (exit 8) with what to change: --procs, fewer
clients, a longer --lease. A violation no lateness explains stays UNSAFE (exit 7), and so does
any violation under a --chaos fault that breaks leases (all but kill-holder, whose dead holder
writes nothing more).

Exit codes for race: 0 safe, 7 violations found (UNSAFE), 8 inconclusive (the harness ran too
late to tell), 2 bad input, a target not confirmed or a key that exists on it (before anything
starts), 3 Redis unreachable, 130 interrupted (the summary is still printed).

Examples:
  redlock-cli race orders --kind fair --clients 32 --duration 20s --lease 200ms --hold 20ms --chaos pause
  redlock-cli race orders --kind token --clients 1000 --duration 10s --procs 4
  redlock-cli race orders --release naive-del --no-renew --lease 50ms --hold 80ms --json
  redlock-cli race orders --chaos pause --duration 5s --html race.html
  redlock-cli race race:orders -u rediss://10.0.0.5:6380 --cacert ca.pem --yes`;

/** --procs N starts N worker processes, as many as this machine can run; left out, every client runs in this one. */
function workers(value: string | undefined): number {
  return optionalCount(value, '--procs', procsBounds()) ?? 0;
}

function required(value: string, flag: string): number {
  return durationFlag(value, flag)!;
}

/**
 * Where the race runs: the sandbox the line (or the REPL) named, a sandbox of its own when nothing
 * named a server, else the server, Sentinel or Cluster the connection options resolved to.
 */
function target(flags: RaceFlags): RaceTarget {
  const connection = resolvedConnection(flags);
  const own = connection.defaulted && flags.nodes === undefined && connection.sandbox === undefined;
  if (flags.redisServer !== undefined && !own) throw new UsageError('--redis-server picks the binary of the sandbox a race starts: it does not go with a connection option or a target');
  if (flags.nodes !== undefined && connection.sandbox !== undefined) throw new UsageError('--nodes names servers of your own: a sandbox knows its own nodes');
  if (flags.nodes !== undefined && flags.kind !== 'redlock') throw new UsageError(`--nodes is for --kind redlock (independent primaries), not --kind ${flags.kind}`);
  if (connection.sandbox !== undefined) return { type: 'sandbox', name: connection.sandbox };
  if (own) return { type: 'fresh', redisServer: flags.redisServer };
  return { type: 'url', endpoint: connection.endpoint, nodes: flags.kind === 'redlock' ? connection.nodes : undefined };
}

/** Every flag checked and combined; nothing has started yet. */
export function racePlanFromFlags(keys: readonly string[], flags: RaceFlags): RacePlan {
  keys.forEach(checkKeyName);
  return checkRacePlan({
    keys,
    kind: flags.kind,
    clients: parseCount(flags.clients, '--clients', { min: 1, max: MAX_CLIENTS }),
    procs: workers(flags.procs),
    durationMs: required(flags.duration, '--duration'),
    leaseMs: required(flags.lease, '--lease'),
    holdMs: required(flags.hold, '--hold'),
    holdDist: flags.holdDist,
    waitMs: required(flags.wait, '--wait'),
    release: flags.release,
    renew: flags.renew,
    chaos: flags.chaos,
    chaosEveryMs: durationFlag(flags.chaosEvery, '--chaos-every'),
    chaosForMs: durationFlag(flags.chaosFor, '--chaos-for'),
    target: target(flags),
  });
}

export function registerRace(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('race')
    .summary('many clients contend for a lock under load and faults: throughput, waits, fairness, and a safety verdict')
    .argument('<key...>', 'lock names; clients are dealt over them round-robin')
    .option('-k, --kind <kind>', `lock protocol: ${RACE_KINDS.join(', ')}`, 'reentrant')
    .option('-c, --clients <n>', 'logical clients, each with its own connection and owner', '8')
    .option('--procs <n>', 'spread the clients over this many worker processes (default: all in this one)')
    .option('-d, --duration <duration>', 'how long the race runs', '10s')
    .option('--lease <duration>', 'lock lease (renewed every third of it unless --no-renew)', '200ms')
    .option('--hold <duration>', 'time inside the critical section (the mean, for --hold-dist uniform and exp)', '20ms')
    .option('--hold-dist <dist>', `hold time distribution: ${HOLD_DISTS.join(', ')}`, 'fixed')
    .option('--wait <duration>', 'how long one acquisition waits before giving up and trying again', '1s')
    .option('--release <mode>', `${RELEASE_MODES.join(' or ')}: safe is the owner-checked release, naive-del a plain DEL`, 'safe')
    .option('--no-renew', 'no watchdog renewals: the lease is all a holder gets')
    .option('--chaos <verb>', `inject faults: ${CHAOS_VERBS.join(', ')}`)
    .option('--chaos-every <duration>', 'time between faults (default 2s)')
    .option('--chaos-for <duration>', 'how long a pause, latency or partition lasts (default 2 x lease + hold)')
    .addOption(nodesOption('--kind redlock on servers of your own: the independent primaries'))
    .addOption(redisServerOption())
    .option('-y, --yes', 'race on a server that is not a redlock-cli sandbox without asking (required when not on a terminal)')
    .option('--json', 'print every figure and the recorded history as JSON instead of the summary');
  addHtmlOption(cmd).addHelpText('after', prose(ctx, HELP));
  declareConnectionOptions(cmd);
  cmd.action(
    act(ctx, async (keys: string[], flags: RaceFlags) => {
      const plan = racePlanFromFlags(keys, flags);
      if (flags.html !== undefined) await checkReportPath(flags.html);
      if (flags.yes !== true) await confirmTarget(ctx, plan);
      const json = flags.json === true;
      const live = ctx.stdout.isTTY === true && !json;
      let view: { close(): Promise<void> } | undefined;
      try {
        const result = await runRace(plan, {
          env: ctx.env,
          signal: ctx.signal,
          onProgress: json || !ctx.stderr.isTTY ? undefined : (line) => note(ctx, line),
          onStart: live ? (monitor) => void (view = mountLive(ctx, monitor)) : undefined,
        });
        await view?.close();
        view = undefined;
        if (json) printJson(ctx, raceJson(result));
        else for (const line of raceSummary(result, widthOf(ctx.stdout))) print(ctx, line);
        if (flags.html !== undefined) await writeReport(ctx, flags.html, (await import('./race/report.js')).raceReport(result));
        if (result.judgement.outcome === 'unsafe') return ExitCode.verdictMismatch;
        if (result.interrupted) return ExitCode.interrupted;
        return result.judgement.outcome === 'inconclusive' ? ExitCode.inconclusive : ExitCode.ok;
      } finally {
        await view?.close();
      }
    }),
  );
}

/** A race writes locks (and a fenced lock's counter): on a server that is not a sandbox, only when the user says so. */
async function confirmTarget(ctx: CommandContext, plan: RacePlan): Promise<void> {
  if (plan.target.type !== 'url') return;
  const where = plan.target.nodes ? `the Redlock nodes ${plan.target.nodes.map(describeEndpoint).join(', ')}` : describeEndpoint(plan.target.endpoint);
  const ok = await confirm(
    ctx,
    `race writes locks on ${plan.keys.map(escapeControls).join(', ')} at ${where}, which is not a redlock-cli sandbox (only on keys that do not exist there). Race there?`,
    `race writes locks at ${where}, which is not a redlock-cli sandbox: pass --yes to race there (there is no terminal to ask on), or --sandbox <name> to race on a sandbox`,
  );
  if (!ok) throw new UsageError('race cancelled: nothing was started and nothing changed');
}

/** The live view loads ink and react only now; until they are loaded the race just runs. */
function mountLive(ctx: CommandContext, monitor: RaceMonitor): { close(): Promise<void> } {
  const mounted = import('../race/live-source.js').then(async ({ liveSource }) => {
    const { mountRaceView } = await import('../ui/race-live.js');
    return mountRaceView({ stdout: ctx.stdout, stderr: ctx.stderr, source: liveSource(monitor) });
  });
  return { close: async () => (await mounted.catch(() => undefined))?.close() };
}
