import type { Command } from 'commander';
import { printable } from '../core/decode/escape.js';
import { safeText } from '../core/terminal-text.js';
import { ExitCode } from '../core/exit-codes.js';
import { formatColumns, widthOf, wrapShellCommand, wrapText } from '../core/text-layout.js';
import type { Finding } from '../core/doctor.js';
import { DOCTOR_CODES, scenarioFor } from '../core/doctor-codes.js';
import { paintFor } from './colour.js';
import { REDISSON_THREAD_WAIT_MS } from '../locks/fair.js';
import { DEFAULT_SCAN_COUNT, SCAN_COUNT_BOUNDS } from '../inspect/scan.js';
import { connect } from '../redis/connection.js';
import { act, note, print, printJson, tableWidth, type CommandContext, type RunContext } from './context.js';
import { fixTargetFor } from './doctor/target.js';
import { reportPartial } from './cluster-partial.js';
import { runDoctor, type DoctorReport } from '../inspect/doctor-run.js';
import { scanProgress } from './ls-progress.js';
import { optionalCount } from '../core/count.js';
import { addConnectionOptions, durationFlag, targetSpec, type ConnectionFlags } from './options.js';
import { prose } from './help-text.js';

interface DoctorFlags extends ConnectionFlags {
  readonly json?: boolean;
  readonly fairWait?: string;
  readonly renewals?: string | boolean;
  readonly scanCount?: string;
}

/** Redisson's watchdog renews every 10 s: a window a little longer sees one renewal of every watched lock. */
const DEFAULT_RENEWAL_WINDOW = '11s';

/** Finding codes, what they mean and the scenario that replays each, as a table at the help's width. */
function codesHelp(width: number): string {
  const rows = DOCTOR_CODES.map((c) => [c.severity, c.code, `${c.meaning}${c.scenario ? ` (scenario show ${c.scenario})` : ''}`]);
  return formatColumns(rows, { width: width - 2, wrapLast: true })
    .map((l) => `  ${l}`)
    .join('\n');
}

const HELP_BEFORE = `
Scans like ls (read-only: SCAN inside a probe script, snapshot scripts, INFO, CLIENT LIST) and
reports what can be seen in the data; each finding names the scenario that replays it
(redlock-cli scenario show <name>):`;

const HELP_AFTER = `and every other error or warning the decoder reports (see inspect).

Renewals: doctor cannot see who renews a lock, only that its TTL went back up between two reads
--renewals apart (default ${DEFAULT_RENEWAL_WINDOW}, past Redisson's 10 s watchdog period). Whether the holder is
still there is visible only if clients name their connections with their UUID (CLIENT SETNAME,
Redisson's clientName): without such names doctor says so and reports nothing.

Each finding has a severity, an explanation and the command that would fix it, printed and never
run. Printed commands carry no password: add --askpass to redis-cli, or set REDIS_URL.

--json prints one array of findings: {severity, code, key (null for server findings), node,
message, fix, scenario}. The summary goes to stderr.

Exit codes for doctor: 0 no findings, 6 findings (any severity printed), 9 a Cluster primary
could not be read (named on stderr with its slots), 2/3 as usual.`;

export function registerDoctor(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('doctor')
    .summary('find stuck and dangerous lock state: no TTL, dead queue heads, zombie readers, app data, lagging replicas')
    .argument('[pattern]', 'SCAN MATCH glob for key names', '*')
    .option('--fair-wait <duration>', `a fair waiter's allowance, for queue drift (default ${REDISSON_THREAD_WAIT_MS / 60_000}m, Redisson's threadWaitTime)`)
    .option('--renewals [duration]', `also watch Redisson-held locks this long for renewals (default ${DEFAULT_RENEWAL_WINDOW})`)
    .option('--scan-count <n>', `SCAN COUNT hint: keys per round trip (default ${DEFAULT_SCAN_COUNT})`)
    .option('--json', 'print the findings as one JSON array')
    .addHelpText('after', () => `${prose(ctx, HELP_BEFORE)()}\n${codesHelp(widthOf(ctx.stdout))}\n${prose(ctx, HELP_AFTER)()}`);
  addConnectionOptions(cmd, { pubsub: false }); // read-only: never notifies
  cmd.action(
    act(ctx, async (pattern: string, flags: DoctorFlags) => {
      const spec = targetSpec(flags, ctx);
      const fairWaitMs = durationFlag(flags.fairWait, '--fair-wait') ?? REDISSON_THREAD_WAIT_MS;
      const renewal = typeof flags.renewals === 'string' ? flags.renewals : flags.renewals === true ? DEFAULT_RENEWAL_WINDOW : undefined;
      const renewalWindowMs = durationFlag(renewal, '--renewals');
      const scanCount = optionalCount(flags.scanCount, '--scan-count', SCAN_COUNT_BOUNDS);
      const conn = await connect(spec, { mode: 'one-shot', name: 'redlock-cli:doctor' });
      const progress = scanProgress(ctx, 'locks');
      try {
        if (renewalWindowMs !== undefined) note(ctx, `watching renewals for ${renewal}…`);
        const report = await runDoctor(conn, {
          pattern,
          fairWaitMs,
          renewalWindowMs,
          scanCount,
          signal: ctx.signal,
          onProgress: progress.update,
          targetFor: fixTargetFor(conn, flags),
        }).finally(() => progress.done());
        if (ctx.signal?.aborted) return ExitCode.interrupted;
        printReport(ctx, report, pattern, flags.json === true, conn.topology === 'cluster');
        return reportPartial(ctx, report.unread, report.findings.length > 0 ? ExitCode.findings : ExitCode.ok);
      } finally {
        await conn.close();
      }
    }),
  );
}

const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

const INDENT = '         ';

function printFinding(ctx: RunContext, f: Finding, showNode: boolean): void {
  const paint = paintFor(ctx, 'stdout');
  const where = f.key === null ? f.node ?? '' : `${paint.key(printable(f.key))}${showNode && f.node ? ` (${f.node})` : ''}`;
  const severity = f.severity === 'error' ? paint.error : paint.warning;
  print(ctx, `${severity(f.severity.toUpperCase().padEnd(7))}  ${f.code}  ${where}`);
  for (const line of wrapText(safeText(f.message), Math.max(40, widthOf(ctx.stdout)), { head: INDENT })) print(ctx, line);
  // The fix is meant to be copied whole: piped, one line; on a terminal broken only between shell
  // words, with ` \` line continuations, so it still pastes as one command.
  const width = tableWidth(ctx);
  const fix = width === undefined ? [`${INDENT}fix: ${f.fix}`] : wrapShellCommand(f.fix, width, { head: `${INDENT}fix: `, indent: `${INDENT}     ` });
  for (const line of fix) print(ctx, line);
  const scenario = scenarioFor(f.code);
  if (scenario !== undefined) print(ctx, `${INDENT}see: redlock-cli scenario show ${scenario}`);
}

function printReport(ctx: RunContext, report: DoctorReport, pattern: string, json: boolean, cluster: boolean): void {
  const { findings } = report;
  if (json) printJson(ctx, findings.map((f) => ({ ...f, scenario: scenarioFor(f.code) ?? null })));
  else findings.forEach((f, i) => (i > 0 && print(ctx, ''), printFinding(ctx, f, cluster)));
  for (const line of report.notes) note(ctx, `note: ${line}`);
  const scope = `${plural(report.locks, 'lock')} among ${plural(report.scanned, 'key')} matching ${pattern}`;
  if (findings.length === 0) {
    note(ctx, report.scanned === 0 ? `no keys match ${pattern}; no server problems found` : `no problems found in ${scope}`);
    return;
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  note(ctx, `${plural(findings.length, 'problem')} (${plural(errors, 'error')}, ${plural(findings.length - errors, 'warning')}) in ${scope}`);
}
