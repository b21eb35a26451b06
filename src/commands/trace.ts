import { Option, type Command } from 'commander';
import { prose } from './help-text.js';
import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { Finding } from '../core/trace/checker.js';
import type { TraceEvent } from '../core/trace/events.js';
import { eventLine, findingLine } from '../core/trace/format.js';
import { globMatcher } from '../core/trace/pattern.js';
import { eventJson } from '../core/trace/recording.js';
import { REPORT_EVENTS } from '../core/report/model.js';
import { replayChartLines } from '../core/trace/replay-chart.js';
import type { FailOn, TraceSession } from '../core/trace/session.js';
import { summaryLines } from '../core/trace/summary-text.js';
import { widthOf } from '../core/text-layout.js';
import { safeJson, safeLine } from '../core/terminal-text.js';
import type { SourceStats } from '../trace/source.js';
import { WriterCollector } from '../core/who/writers.js';
import { describeTarget } from '../redis/target.js';
import { rememberWriters } from '../state/owner-directory.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { addHtmlOption, checkReportPath, writeReport } from './report-file.js';
import { addConnectionOptions, durationFlag, nodesOption, redlockNodesOf, targetSpec, type ConnectionFlags } from './options.js';
import type { TargetSpec } from '../redis/target.js';

interface TraceFlags extends ConnectionFlags {
  readonly for?: string;
  readonly json?: boolean;
  readonly record?: string;
  readonly from?: string;
  readonly source: 'monitor' | 'keyspace';
  readonly enableNotifications?: boolean;
  readonly html?: string;
  readonly scenario?: string;
  readonly at?: string;
  readonly finding?: string;
  readonly failOn?: string;
}

const HELP = `
Follows the server's own command stream (MONITOR: every command, and every command a Lua script
runs) on the primary, on every Cluster primary, or on the Sentinel master across a failover, and
decodes each lock operation of Redisson (lock, fair, read-write, fenced, spin, semaphores),
node-redlock, redsync, redis-py, redis-semaphore and redlock-cli: acquired, refused (and by whom),
renewed, released, release or renewal refused, expired (from the lease and the server's clock),
force-unlocked, deleted by a plain command, queue and reader changes, each with the client
(address and CLIENT SETNAME), the owner id and the server's time. Other writes to a lock key are
shown raw. Only MONITOR, CLIENT LIST and (after a failover, or a Redlock node's restart) EXISTS
are sent: trace never writes. MONITOR costs the server throughput while it runs (measured in
docs/performance.md).

--nodes url,url,... follows Redlock's independent primaries (as race and the lock commands take
them; a Redlock sandbox's with --sandbox): one MONITOR per node, each event with its node. An
owner holds the lock once it has a majority of nodes, until its validity ends (its lease less
the drift allowance) or it releases; two owners holding a majority at once are an overlap, and
the node both counted says why: its clock stepped forward (a clock-step event), or it restarted
without its data (blind while it was away, then the key found gone).

--source keyspace follows keyspace notifications instead (PSUBSCRIBE __keyspace@<db>__:*) where
the server has them on: notify-keyspace-events must include K g $ h x, or trace exits 2 saying
which are missing; --enable-notifications sets them with CONFIG SET and puts the old value back at
the end (the only config trace ever changes, and only when asked). A trace that is killed
(SIGKILL, a crash, a lost machine) cannot put it back: the redis-cli command that does is printed
when the change is made (without the password: --askpass asks for it). Each write is read back (GET or
HGETALL, PTTL) for its owner; a key that changed again before the read gives an event whose owner
is unknown, and says so. Sent: CONFIG GET, TIME, PSUBSCRIBE and those reads. Notifications name no client or script: no attempts or refusals, so no
expired-while-held or overlap; a token lock's DEL counts as its release; expiries are the server's
own expired notifications. The flags are read again every 2 s: if they are turned off under the
trace (another trace ending, an operator), it says it went blind and from when, and the summary
says nothing unsafe was seen only outside that period.

Findings (unsafe, exit 7): expired-while-held (a lease ran out and its owner later renewed or
released as if it still held it: from the expiry to its last such act seen), overlap (another
owner's hold shared time with that window: one per pair, to that hold's release or expiry),
silent-reacquire (set again without NX), foreign-delete (a held lock removed by DEL, UNLINK,
FLUSH or a force-unlock), lost-in-failover (held on the old primary, absent on the promoted one).
Warnings: renewal-gap (renewed with less than a third of the lease left, or renewals stopped),
no-ttl, overdue-queue-head, unchecked-release (a holder's own plain DEL, which checks nobody: ShedLock
without safeUpdate), starvation (an owner refused while the lock was never free: overtaken twice by
holds that began after it asked, or kept out for more than 3 leases by holders that only renewed).
Liveness: deadlock (a waiter kept out by a lock nobody alive will free, with its why: no-ttl,
count-left, dead-queue-head, orphan-hold, data-key); starvation is one too.
The trace sees a server clock that steps forward (MONITOR's times jump past its own clock) and records it.

On a terminal: lanes per client and lock, findings and recent events, live. Piped: one line per
event and finding, then a summary per lock (acquisitions, refusals, hold and wait p50 / p99).
--json: one JSON object per line: {"type":"event",...}, {"type":"finding",...} (with "update":true
when a later act of the stale owner lengthened a finding already printed: it replaces the one of
the same kind, lock, owners and "from"), and at the end
{"type":"summary","locks":[...],"findings":[...],"blind":[{"from","to","node","detail"}],"unsafe":bool,"source":"monitor"|"keyspace",
"lines":n,"maxLagMs":n}. Events:
attempt (a client asked for the lock: it comes before that request's acquired, refused, reader or
queue join, at the time the request reached the server), acquired, refused, renewed, released,
renew-refused, release-refused, expired, force-unlocked, deleted, queue-join/-leave,
reader-join/-leave, failover, lost-in-failover, raw, blind (from then on nothing was seen of a
node), unblind (seen again) and clock-step (a node's clock moved forward by stepMs).
--record FILE writes the events as the same event lines; --from FILE reads that back, or a log
saved with \`redis-cli monitor > FILE\`, and prints the lane chart, the events and the findings.

--from FILE --scenario OUT.yaml writes a scenario that replays one unsafe, deadlock or starvation finding instead (the
first; --finding N the n-th, --at TIME the one at that moment): the owners become clients A, B,
C, with their leases and renewals, the fault that explains the history (a pause of the holder,
a lease that ran out before the release, a foreign delete, a failover, a clock step, readers
overtaking a writer, a hung holder) is injected, and fixed variants (longer lease, watchdog,
fencing on a fenced lock, owner-checked release, compare-and-extend, WAIT for a replica, slew-only
time, writer preference, a bounded watchdog: those that apply) run beside the unsafe one. Run it with
\`redlock-cli scenario run OUT.yaml\`. Exit 4 when the recording has no unsafe finding there, or
its fault cannot be inferred (the line says what was seen). A recording of Redlock nodes replays
the overlap of two majorities, with the clock step or the restart on the node both counted, and
the fix beside it (slew-only time, a delayed restart).

Exit codes for trace: 0 nothing unsafe seen (--scenario: the file was written), 7 something
unsafe was seen (with --fail-on liveness, also a deadlock or a starvation), 2 bad input, 3 Redis unreachable (or the user may not run MONITOR), 4 (--scenario)
no unsafe finding to replay, or its fault not inferred, 130 interrupted before anything was traced.

Examples:
  redlock-cli trace --url redis://10.0.0.5:6379 --for 10m
  redlock-cli trace 'orders:*' --json > trace.ndjson
  redlock-cli trace --sentinel 10.0.0.5:26379 --master-name main --record incident.ndjson
  redlock-cli trace --nodes redis://10.0.0.5,redis://10.0.0.6,redis://10.0.0.7 --record rl.ndjson
  redlock-cli trace --source keyspace --enable-notifications --for 5m
  redlock-cli trace --from incident.ndjson
  redis-cli monitor > monitor.log; redlock-cli trace --from monitor.log
  redlock-cli trace --from incident.ndjson --html incident.html
  redlock-cli trace --from incident.ndjson --scenario incident.yaml --finding 2`;

export function registerTrace(program: Command, ctx: CommandContext): Command {
  const cmd = program
    .command('trace')
    .summary('follow every lock operation on a real server, live, and diagnose it: overlaps, expiries, foreign deletes (read-only)')
    .argument('[pattern]', 'only locks whose name matches this glob (Redis MATCH syntax), e.g. orders:*')
    .option('--for <duration>', 'stop after this long (default: until Ctrl-C)')
    .option('--json', 'NDJSON: every event and finding as it happens, the summary at the end')
    .option('--record <file>', 'also write the decoded events to this file (read it back with --from)')
    .option('--from <file>', 'diagnose a recording, or a saved `redis-cli monitor` log, instead of a live server')
    .option('--scenario <file>', 'with --from: write a scenario that replays an unsafe finding, with its fixes (scenario run FILE)')
    .option('--finding <n>', 'with --scenario: the n-th unsafe finding (default the first)')
    .option('--at <time>', 'with --scenario: the unsafe finding at this moment (14:03:07.250 UTC, or an ISO date and time)')
    .addOption(new Option('--source <source>', 'what to follow: the command stream, or keyspace notifications').choices(['monitor', 'keyspace']).default('monitor'))
    .option('--fail-on <class>', 'liveness: exit 7 on deadlock, starvation too')
    .option('--enable-notifications', 'with --source keyspace: turn on the notify-keyspace-events flags it needs, put them back at the end')
    .addOption(nodesOption('Redlock: follow these independent primaries, one MONITOR each, and judge the lock by majority'))
    .addHelpText('after', prose(ctx, HELP));
  addConnectionOptions(cmd, { pubsub: false }); // read-only: never notifies
  addHtmlOption(cmd);
  cmd.action(
    act(ctx, async (pattern: string | undefined, flags: TraceFlags) => {
      const wants = globMatcher(pattern);
      const failOn = failOnFlag(flags.failOn ?? 'unsafe');
      if (flags.html !== undefined) await checkReportPath(flags.html);
      if (flags.enableNotifications && flags.source !== 'keyspace') throw new UsageError('--enable-notifications goes with --source keyspace');
      if (flags.scenario === undefined && (flags.at !== undefined || flags.finding !== undefined)) throw new UsageError('--at and --finding pick the finding --scenario replays: add --scenario FILE');
      if (flags.scenario !== undefined && flags.from === undefined) throw new UsageError('--scenario turns a recording into a scenario: add --from FILE');
      if (flags.from !== undefined) {
        if (flags.record !== undefined || flags.for !== undefined) throw new UsageError('--from reads a saved trace: it takes no --record or --for');
        if (flags.nodes !== undefined) throw new UsageError('--from reads a saved trace: it takes no --nodes (a recording of Redlock nodes names them itself)');
        if (flags.source !== 'monitor') throw new UsageError('--from reads a saved trace: it takes no --source');
        if (flags.scenario !== undefined) {
          if (flags.json) throw new UsageError('--scenario writes a file and prints one line: it takes no --json');
          if (flags.html !== undefined) throw new UsageError('--scenario writes a scenario, --html a page: run them one at a time');
          if (flags.at !== undefined && flags.finding !== undefined) throw new UsageError('--at and --finding both pick a finding: give one of them');
          const { traceToScenario } = await import('./trace/to-scenario.js');
          return traceToScenario(ctx, flags.from, wants, { scenario: flags.scenario, ...(flags.at !== undefined ? { at: flags.at } : {}), ...(flags.finding !== undefined ? { finding: flags.finding } : {}) });
        }
        return replay(ctx, flags.from, wants, flags.json === true, flags.html, failOn);
      }
      return live(ctx, flags, wants, failOn);
    }),
  );
  return cmd;
}

/**
 * Said once as a MONITOR trace (or export) starts: what it costs the server (the figure is
 * bench/trace.ts's, docs/performance.md#trace) and how to keep that cost bounded.
 */
export function monitorCostNote(command: string, bound: string): string {
  return (
    `${command}: MONITOR copies every command the server runs to this client, which costs the server throughput ` +
    `(61 to 72 % fewer lock operations all-out in docs/performance.md#trace): ${bound}, and run it from another machine where you can`
  );
}

const traceBound = (forMs: number | undefined): string => (forMs !== undefined ? `it stops after ${formatDuration(forMs)} (--for)` : 'bound it with --for 30s');

/** Redlock's primaries to follow (--nodes, a Redlock sandbox's or saved target's); undefined: the target's own. */
async function redlockNodes(flags: TraceFlags): Promise<readonly TargetSpec[] | undefined> {
  const nodes = redlockNodesOf(flags);
  return nodes ? (await import('../locks/env.js')).checkRedlockNodes(nodes) : undefined;
}

/** --fail-on: the class of finding that fails the run besides the unsafe ones. */
function failOnFlag(value: string): FailOn {
  if (value === 'unsafe' || value === 'liveness') return value;
  throw new UsageError(`--fail-on ${JSON.stringify(value)}: expected unsafe (the default) or liveness (a deadlock or a starvation exits 7 too)`);
}

async function live(ctx: CommandContext, flags: TraceFlags, wants: (lock: string) => boolean, failOn: FailOn): Promise<number> {
  const forMs = durationFlag(flags.for, '--for');
  const spec = targetSpec(flags, ctx);
  const nodes = await redlockNodes(flags);
  const where = nodes ? `Redlock nodes ${nodes.map(describeTarget).join(', ')}` : describeTarget(spec);
  const json = flags.json === true;
  const tty = ctx.stdout.isTTY === true && !json;
  const { runTrace } = await import('../trace/run.js');
  // Who wrote each owner id, for `who` to name a holder that is quiet or gone later (the owner directory).
  const writers = new WriterCollector(where);
  let view: { close(): Promise<void> } | undefined;
  // While the live view draws, status lines (reconnecting, failover) go into it, not across it.
  let status: string | undefined;
  const kept = flags.html !== undefined ? new ReportEvents() : undefined;
  try {
    const result = await runTrace({
      spec,
      redlockNodes: nodes,
      wants,
      forMs,
      signal: ctx.signal,
      record: flags.record,
      source: flags.source,
      enableNotifications: flags.enableNotifications === true,
      onStatus: (text) => (view ? (status = text) : note(ctx, `trace: ${text}`)),
      onStart: (what, session, source) => {
        note(ctx, `trace: following ${what}${forMs !== undefined ? '' : '; Ctrl-C ends it'}`);
        if (flags.source === 'monitor') note(ctx, monitorCostNote('trace', traceBound(forMs)));
        if (tty) view = mountLive(ctx, what, session, () => ({ ...source.stats, status }));
      },
      onEvents: (events, found) => {
        writers.observe(events);
        kept?.add(events);
        if (!tty) printStream(ctx, events, found, json);
      },
    });
    await view?.close();
    view = undefined;
    printEnd(ctx, result.session, json, result.stats);
    if (flags.html !== undefined) await writeTraceReport(ctx, flags.html, `trace ${where}${result.interrupted ? ' (ended by Ctrl-C)' : ''}`, result.session, kept!);
    return result.session.fails(failOn) ? ExitCode.verdictMismatch : ExitCode.ok;
  } finally {
    await view?.close();
    await rememberWriters(ctx.env, writers.entries(), (line) => note(ctx, `trace: ${line}`));
  }
}

async function replay(ctx: CommandContext, file: string, wants: (lock: string) => boolean, json: boolean, html: string | undefined, failOn: FailOn): Promise<number> {
  const { replayFile } = await import('../trace/replay.js');
  const { ReplayOutput } = await import('./trace/replay-output.js');
  const out = new ReplayOutput(ctx, json);
  const kept = html !== undefined ? new ReportEvents() : undefined;
  const onEvents = (events: readonly TraceEvent[], found: readonly Finding[]) => {
    kept?.add(events);
    out.add(events, json ? found : []);
  };
  const session = await replayFile({ file, wants, onEvents, drained: () => out.drained(), chart: !json }).finally(() => out.flush());
  if (!json) {
    print(ctx, '');
    for (const line of replayChartLines(session, chartWidth(ctx))) print(ctx, line);
  }
  printEnd(ctx, session, json);
  if (html !== undefined) await writeTraceReport(ctx, html, `trace --from ${file}`, session, kept!);
  return session.fails(failOn) ? ExitCode.verdictMismatch : ExitCode.ok;
}

/** The events a page shows: the most recent REPORT_EVENTS, so a day-long trace keeps bounded memory. */
class ReportEvents {
  private kept: TraceEvent[] = [];
  constructor(private readonly limit = REPORT_EVENTS) {}

  add(events: readonly TraceEvent[]): void {
    for (const e of events) this.kept.push(e);
    if (this.kept.length > this.limit * 1.5) this.kept = this.kept.slice(-this.limit);
  }

  all(): TraceEvent[] {
    return this.kept.slice(-this.limit);
  }
}

async function writeTraceReport(ctx: CommandContext, file: string, subtitle: string, session: TraceSession, kept: ReportEvents): Promise<void> {
  const { traceReport } = await import('../core/report/from-trace.js');
  const report = traceReport({ subtitle, events: kept.all(), seen: session.events, findings: session.findings, locks: session.locks(), blind: session.blind });
  await writeReport(ctx, file, report);
}

const chartWidth = (ctx: CommandContext) => Math.max(60, Math.min(ctx.stdout.columns ?? 80, 160));

function printStream(ctx: CommandContext, events: readonly TraceEvent[], found: readonly Finding[], json: boolean): void {
  for (const line of streamLines(events, found, json)) ctx.stdout.write(`${line}\n`);
}

/** The output lines of events and the findings they completed, made safe for a terminal. */
function streamLines(events: readonly TraceEvent[], found: readonly Finding[], json: boolean): string[] {
  // JSON lines through safeJson: safeLine would write a C1 control as \x85, which is not JSON.
  if (json) return [...events.map((e) => safeJson(eventJson(e))), ...found.map((f) => safeJson(JSON.stringify({ type: 'finding', ...f })))];
  return [...events.map((e) => safeLine(eventLine(e))), ...found.map((f) => safeLine(findingLine(f)))];
}

function printEnd(ctx: CommandContext, session: TraceSession, json: boolean, stats?: SourceStats): void {
  if (json) {
    printJson(ctx, { type: 'summary', locks: session.locks(), findings: session.findings, blind: session.blind, unsafe: session.unsafe, events: session.events, ...(stats ? { source: stats.source, lines: stats.lines, maxLagMs: Math.round(stats.maxLagMs) } : {}) });
    return;
  }
  print(ctx, '');
  for (const line of summaryLines(session.locks(), session.findings, ctx.stdout.isTTY ? widthOf(ctx.stdout) : undefined, undefined, session.blind)) print(ctx, line);
  if (stats) note(ctx, `trace: ${session.events} events from ${stats.lines} ${stats.source === 'keyspace' ? 'keyspace notifications' : 'MONITOR lines'}; the trace lagged the server by at most ${Math.round(stats.maxLagMs)} ms`);
}

/** The live view loads ink and react only now; until it is mounted events are just folded in. */
function mountLive(ctx: CommandContext, what: string, session: TraceSession, stats: () => SourceStats & { readonly status: string | undefined }): { close(): Promise<void> } {
  const mounted = import('../ui/trace-live.js').then(({ mountTraceView }) => mountTraceView({ stdout: ctx.stdout, stderr: ctx.stderr, what, session, stats }));
  return { close: async () => (await mounted.catch(() => undefined))?.close() };
}
