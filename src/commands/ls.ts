import type { Command } from 'commander';
import { BSM_REDISLOCK, groupMultiKeyLocks } from '../core/decode/bsm.js';
import type { LockView } from '../core/lock-view.js';
import { parseInspectKind } from '../core/decode/index.js';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { readConsistencyNote } from '../core/inspect-text.js';
import type { InspectKind } from '../core/lock-view.js';
import { collectLocks, LOCK_KINDS, scanLocks, type LockScanOptions } from '../inspect/scan-locks.js';
import { DEFAULT_SCAN_COUNT, SCAN_COUNT_BOUNDS } from '../inspect/scan.js';
import { optionalCount } from '../core/count.js';
import { connect } from '../redis/connection.js';
import { formatTable, lsRow, sortViews } from '../ui/ls-table.js';
import { act, note, print, type CommandContext, type RunContext, tableWidth } from './context.js';
import { addNodesOption, lsAcrossNodes } from './across-nodes.js';
import { reportPartial, unreadCollector } from './cluster-partial.js';
import { scanProgress } from './ls-progress.js';
import { LS_WATCH_INTERVAL_MS, runLsWatch } from './ls/watch.js';
import { addConnectionOptions, redlockNodesOf, targetSpec, type ConnectionFlags } from './options.js';
import { safeJson } from '../core/terminal-text.js';
import { prose } from './help-text.js';
import { paintFor } from './colour.js';

interface LsFlags extends ConnectionFlags {
  readonly kind?: string;
  readonly limit?: string;
  readonly scanCount?: string;
  readonly json?: boolean;
  readonly watch?: boolean;
  readonly interval?: string;
}

const HELP = `
Walks the keyspace with SCAN (never KEYS), on a Cluster every primary, and lists each lock once:
every key the decoder recognises as a lock kind, that is
  ${[...LOCK_KINDS].join(', ')}.
Not listed: application data (kind not-a-lock; list it with --kind not-a-lock), Redisson's
transient redisson_unlock_latch:* keys, and companion keys that belong to a lock (fair queue and
deadlines, redisson_lock_token:*, rwlock_timeout keys, {name}:timeout of expirable semaphores):
their facts are part of their lock's row. Per SCAN step of about ${DEFAULT_SCAN_COUNT} keys it sends one
read-only script (SCAN, then each key's type and short value) and one pipeline of snapshots for
the keys that can be locks; it never writes.

Columns: KEY, KIND (rw:read / rw:write for read-write locks), HOLDER (first holder, +N more;
a Redisson holder as <first UUID group>…:<thread>, xN for re-entrant holds; permits or count for
semaphores and latches), TTL, WAITING (fair locks: queue length; others: clients subscribed to
the unlock channel), WARN (errors and warnings; see them with inspect or doctor). On a terminal
the table fits its width; piped, nothing is cut.

--nodes url,url,... lists the locks of every Redlock node, one entry per key saying which nodes
hold a copy (value, TTL) and whether a majority does; --json then prints one JSON array.

--json prints one JSON array of LockViews (the shape inspect --help describes), streamed as
batches are read, in scan order, one element per line.

--watch is a top-like live view that re-scans every --interval (default ${LS_WATCH_INTERVAL_MS / 1000}s): t sorts by TTL,
w by waiting clients, k by key; p pauses, q quits. It needs a terminal. On a Cluster with a
primary down it stops after the first scan and exits 9 as below.

A pattern that matches no lock prints "no locks match <pattern>" on stderr and exits 0. On a
Cluster with a primary down, the others are listed, the unread primary and its slot ranges are
named on stderr, and the exit code is 9 (partial).

Examples:
  redlock-cli ls
  redlock-cli ls 'orders:*' --kind fair,rw
  redlock-cli ls --json | jq '.[] | select(.ttlMs == -1) | .key'
  redlock-cli ls --watch`;

function parseKinds(text: string | undefined): ReadonlySet<InspectKind> | undefined {
  if (text === undefined) return undefined;
  const kinds = new Set(text.split(',').map((k) => k.trim()).filter((k) => k !== '').map(parseInspectKind));
  if (kinds.has('missing')) throw new UsageError('--kind missing makes no sense for ls: SCAN only finds keys that exist');
  return kinds;
}

/** --limit: stop after this many locks. */
const LIMIT_BOUNDS = { min: 1, max: 1_000_000_000 } as const;

export function registerLs(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('ls')
    .summary('list every lock in Redis (SCAN, all Cluster primaries): holder, TTL, waiting, warnings')
    .argument('[pattern]', 'SCAN MATCH glob for key names', '*')
    .option('-k, --kind <kinds>', 'only these kinds, comma-separated (e.g. fair,rw; not-a-lock lists application data)')
    .option('--limit <n>', 'stop after n locks')
    .option('--scan-count <n>', `SCAN COUNT hint: keys per round trip (default ${DEFAULT_SCAN_COUNT})`)
    .option('--json', 'one JSON array of LockViews, one per line (docs/json/inspect.schema.json)')
    .option('--watch', 'live, top-like view that re-scans every --interval (needs a terminal)')
    .option('--interval <duration>', `time between scans with --watch (default ${LS_WATCH_INTERVAL_MS / 1000}s)`)
    .addHelpText('after', prose(ctx, HELP));
  addNodesOption(cmd);
  addConnectionOptions(cmd, { pubsub: false }); // read-only: never notifies
  cmd.action(
    act(ctx, async (pattern: string, flags: LsFlags) => {
      const scan: LockScanOptions = {
        pattern,
        kinds: parseKinds(flags.kind),
        limit: optionalCount(flags.limit, '--limit', LIMIT_BOUNDS),
        count: optionalCount(flags.scanCount, '--scan-count', SCAN_COUNT_BOUNDS),
        signal: ctx.signal,
      };
      const spec = targetSpec(flags, ctx);
      const nodes = redlockNodesOf(flags);
      if (nodes !== undefined) return lsAcrossNodes(ctx, nodes, spec, pattern, flags.json === true);
      if (flags.watch) return runLsWatch(ctx, { spec, scan, json: flags.json === true, interval: flags.interval });
      if (flags.interval !== undefined) throw new UsageError('--interval goes with --watch');
      const conn = await connect(spec, { mode: 'one-shot', name: 'redlock-cli:ls' });
      const unread = unreadCollector();
      try {
        const partial = { ...scan, onUnread: unread.onUnread };
        const found = flags.json ? await streamJson(ctx, conn, partial) : await printTable(ctx, conn, partial);
        if (found === 0 && unread.nodes.length === 0) note(ctx, `no locks match ${pattern}`);
        else if (scan.limit !== undefined && found >= scan.limit) note(ctx, `stopped after ${found} locks (--limit ${scan.limit})`);
        return reportPartial(ctx, unread.nodes, ctx.signal?.aborted ? ExitCode.interrupted : ExitCode.ok);
      } finally {
        await conn.close();
      }
    }),
  );
}

type Conn = Parameters<typeof collectLocks>[0];

/**
 * One JSON array, written as batches arrive: a million-key scan starts printing at once and holds
 * no list. The closing bracket is written whatever ends the scan (an error, Ctrl-C), so stdout is
 * always one JSON document; each element is on its own line.
 */
async function streamJson(ctx: RunContext, conn: Conn, scan: LockScanOptions): Promise<number> {
  const progress = scanProgress(ctx, scan.kinds?.has('not-a-lock') ? 'listed' : 'locks');
  let found = 0;
  let written = 0;
  const write = (views: readonly LockView[]) => {
    if (views.length === 0) return;
    const items = views.map((v) => safeJson(JSON.stringify(v))).join(',\n');
    ctx.stdout.write(`${written === 0 ? '[\n' : ',\n'}${items}`);
    written += views.length;
  };
  // An ObtainMulti lock's keys may come in different batches: those views wait for the end, the rest stream.
  const multi: LockView[] = [];
  try {
    for await (const batch of scanLocks(conn, { ...scan, onProgress: progress.update })) {
      found += batch.length;
      const views = batch.map((f) => f.view);
      multi.push(...views.filter((v) => v.library === BSM_REDISLOCK));
      write(views.filter((v) => v.library !== BSM_REDISLOCK));
    }
    write(groupMultiKeyLocks(multi));
  } finally {
    progress.done();
    ctx.stdout.write(written === 0 ? '[]\n' : '\n]\n');
  }
  return found;
}

/** The table needs every row for its widths: collect, sort by key, print. */
async function printTable(ctx: RunContext, conn: Conn, scan: LockScanOptions): Promise<number> {
  const progress = scanProgress(ctx, scan.kinds?.has('not-a-lock') ? 'listed' : 'locks');
  let result: Awaited<ReturnType<typeof collectLocks>>;
  try {
    result = await collectLocks(conn, { ...scan, onProgress: progress.update });
  } finally {
    progress.done();
  }
  const readNote = readConsistencyNote(result.views);
  if (readNote) note(ctx, readNote);
  if (result.views.length === 0) return 0;
  for (const line of formatTable(sortViews(groupMultiKeyLocks(result.views), 'key').map((v) => lsRow(v)), tableWidth(ctx), paintFor(ctx, 'stdout'))) print(ctx, line);
  return result.views.length;
}
