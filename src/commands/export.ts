import { Option, type Command } from 'commander';
import { parseCount } from '../core/count.js';
import { UsageError } from '../core/errors.js';
import { matchHostPort, type HostPort } from '../core/endpoint.js';
import { ExitCode } from '../core/exit-codes.js';
import { DEFAULT_GROUP_CAP, parseGroupRule } from '../core/export/groups.js';
import { globMatcher } from '../core/trace/pattern.js';
import { act, note, type CommandContext } from './context.js';
import { prose } from './help-text.js';
import { addConnectionOptions, durationFlag, targetSpec, type ConnectionFlags } from './options.js';
import { monitorCostNote } from './trace.js';

interface ExportFlags extends ConnectionFlags {
  readonly listen: string;
  readonly source: 'monitor' | 'keyspace' | 'poll';
  readonly enableNotifications?: boolean;
  readonly group: string[];
  readonly maxGroups: string;
  readonly pollEvery: string;
  readonly orphanScan: string;
}

const HELP = `
Serves Prometheus metrics at http://<--listen>/metrics (default 127.0.0.1:9479, this machine
only), fed by what \`trace\` follows: MONITOR (default) or keyspace notifications (--source
keyspace) on the primary, every Cluster primary, or the Sentinel master across a failover; or,
where neither is allowed, by decoding the keyspace every --poll-every (--source poll: ls's reads;
holds shorter than the interval are missed, no refusals). It never writes to Redis. A lost
connection (a restart) is said on stderr and reconnected; it ends on Ctrl-C or SIGTERM with its
sockets closed (exit 0).

Metrics, labelled group, kind, library: redlock_lock_acquire_wait_seconds (histogram, outcome
acquired | abandoned), redlock_lock_hold_seconds (histogram), redlock_lock_holders,
redlock_lock_waiters, redlock_lock_oldest_hold_seconds, redlock_lock_oldest_lease_left_seconds
(gauges), redlock_lock_{acquisitions, refusals, releases, renewals, renewals_refused,
releases_refused, expiries, expired_while_held, foreign_deletes, renewal_gaps, queue_overdue,
lost_in_failover, overlaps}_total; redlock_lock_findings_total (what trace's checker finds, by
finding = its kind and class = unsafe | liveness | warning: alert on {class="unsafe"} or
{finding="deadlock"}); redlock_lock_orphan_keys{group} (companion keys whose lock is
gone, from a scan every --orphan-scan); and the exporter's own redlock_exporter_* (series, groups,
lag, reconnects, up, CPU, memory).

Lock names become groups: the first --group <glob>=<name> that matches, else the name with its
numbers, uuids and ids collapsed (orders:17 -> orders:{n}). Past --max-groups, new names go to the
group "other": the number of series is bounded, stated at start-up and in redlock_exporter_series.

At start-up it prints one line on stderr:
  export: serving http://127.0.0.1:9479/metrics for the server (127.0.0.1:6379); at most 21
  groups (20 and other), 12,453 lock series (593 per group, kind and library); Ctrl-C stops it

Dashboard and alerting rules: docs/grafana/redlock-dashboard.json, docs/prometheus/redlock-alerts.yml.

Exit codes for export: 0 stopped by a signal, 2 bad input (or --listen cannot be bound),
3 Redis unreachable, 10 the user may not run MONITOR (use --source keyspace or poll).

Examples:
  redlock-cli export --url redis://10.0.0.5:6379
  redlock-cli export 'orders:*' --group 'orders:eu:*=orders-eu' --listen 0.0.0.0:9479
  redlock-cli export --sentinel 10.0.0.5:26379 --master-name main --source poll --poll-every 5s`;

/** `host:port`, `[::1]:port` or `:port` (loopback). */
export function parseListen(text: string): HostPort {
  const listen = matchHostPort(text.trim(), '127.0.0.1');
  if (!listen) throw new UsageError(`--listen ${JSON.stringify(text)}: expected host:port, e.g. 127.0.0.1:9479 (port 0: any free one)`);
  return listen;
}

/** `0` or `off` turns a periodic job off; else a duration. */
function intervalFlag(value: string, flag: string): number {
  return value === '0' || value === 'off' ? 0 : durationFlag(value, flag, { minMs: 100 })!;
}

export function registerExport(program: Command, ctx: CommandContext): Command {
  const cmd = program
    .command('export')
    .summary('serve lock metrics to Prometheus (/metrics): waits, holds, holders, expiries, from trace or polling (read-only)')
    .argument('[pattern]', 'only locks whose name matches this glob, e.g. orders:*')
    .option('--listen <host:port>', 'where to serve /metrics', '127.0.0.1:9479')
    .addOption(new Option('--source <source>', 'what to follow: the command stream, keyspace notifications, or polled snapshots').choices(['monitor', 'keyspace', 'poll']).default('monitor'))
    .option('--enable-notifications', 'with --source keyspace: turn on the notify-keyspace-events flags it needs, put them back at the end')
    .option('--group <glob=name>', 'put locks matching the glob in this group (repeatable; first match wins)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--max-groups <n>', 'lock groups at most; later ones go to "other"', String(DEFAULT_GROUP_CAP))
    .option('--poll-every <duration>', 'with --source poll: how often the keyspace is decoded', '2s')
    .option('--orphan-scan <duration>', 'how often to scan for orphan companion keys (0: never)', '60s')
    .addHelpText('after', prose(ctx, HELP));
  addConnectionOptions(cmd, { pubsub: false }); // read-only: never notifies
  cmd.action(
    act(ctx, async (pattern: string | undefined, flags: ExportFlags) => {
      if (flags.enableNotifications && flags.source !== 'keyspace') throw new UsageError('--enable-notifications goes with --source keyspace');
      const listen = parseListen(flags.listen);
      const rules = flags.group.map(parseGroupRule);
      const groupCap = parseCount(flags.maxGroups, '--max-groups', { min: 1, max: 10_000 });
      const pollMs = intervalFlag(flags.pollEvery, '--poll-every');
      if (pollMs === 0) throw new UsageError('--poll-every must be a duration, e.g. 2s');
      const orphanScanMs = intervalFlag(flags.orphanScan, '--orphan-scan');
      const spec = targetSpec(flags, ctx);
      const { runExporter } = await import('../trace/export.js');
      await runExporter({
        spec,
        pattern: pattern ?? '*',
        wants: globMatcher(pattern),
        source: flags.source,
        enableNotifications: flags.enableNotifications === true,
        listen,
        rules,
        groupCap,
        pollMs,
        orphanScanMs,
        signal: ctx.signal,
        onStatus: (text) => note(ctx, `export: ${text}`),
        onStart: (s) => {
          const count = (n: number) => n.toLocaleString('en-US');
          note(ctx, `export: serving ${s.url} for ${s.what}; at most ${count(groupCap + 1)} groups (${count(groupCap)} and other), ${count(s.seriesMax)} lock series (${s.seriesPerGroup} per group, kind and library); Ctrl-C stops it`);
          if (flags.source === 'monitor') note(ctx, monitorCostNote('export', 'use --source keyspace or poll where that is too much'));
        },
      });
      return ExitCode.ok;
    }),
  );
  return cmd;
}
