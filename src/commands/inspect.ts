import type { Command } from 'commander';
import { groupMultiKeyLocks } from '../core/decode/bsm.js';
import { parseInspectKind } from '../core/decode/index.js';
import { ExitCode } from '../core/exit-codes.js';
import { formatLockView, readConsistencyNote } from '../core/inspect-text.js';
import type { LockView } from '../core/lock-view.js';
import { readOnReplicas } from '../inspect/replica-keys.js';
import { inspectEach, inspectKeys, isUnread, type UnreadKey } from '../inspect/snapshot.js';
import { connect } from '../redis/connection.js';
import { act, note, print, printJson, tableWidth, type CommandContext } from './context.js';
import { wrapLine } from '../core/text-layout.js';
import { paintFor } from './colour.js';
import { addWatchOptions, runInspectWatch, wantsWatch, WATCH_HELP, type WatchFlags } from './inspect/watch.js';
import { addConnectionOptions, addNodesOption, checkKeyName, redlockNodesOf, targetSpec, type ConnectionFlags } from './options.js';
import { prose } from './help-text.js';
import { reportUnreadKeys, unreadJson } from './cluster-partial.js';
import type { Connection } from '../redis/connection.js';

export interface InspectFlags extends ConnectionFlags, WatchFlags {
  readonly kind?: string;
  readonly json?: boolean;
}

const HELP = `
Reads each key and its companion keys in one read-only Lua snapshot (Redis refuses any write
from it) and decodes what it finds: Redisson lock, fair lock (queue with deadlines), read-write
lock (readers and their timeout keys), fenced lock, semaphore, permit-expirable semaphore,
count-down latch, redis-semaphore semaphore, or a token lock with the library its value looks like.

--json prints one array with an object per key, in the order given: key (keyHex too when the
name is not UTF-8), kind, possibleKinds (only when the data fits several kinds: all of them,
kind first; a Redisson lock hash with no queue keys is reentrant or fair), type, ttlMs (-1 no TTL, -2 missing), holders[] {owner, client, thread,
count, write}, queue[] {owner, position (0 = next), deadlineInMs (negative = overdue, null =
none), expectedWaitMs, subscribers}, mode, readers[] {owner, count, timeoutKeys[] {key, ttlMs},
zombie}, orphanTimeoutKeys[], token, value, library, available, permits[] {id, expiresInMs,
expired}, count, waiters, size, replicas[] {replica, offset, lagBytes, hasKey (read on the
replica; null when it could not be), ttlMs, error}, warnings[] {code, severity, message}, readAt
(Redis server time, epoch ms). Absent fields do not apply to that kind.

--nodes url,url,... reads each key on every Redlock node instead: which nodes hold a copy, its
value and TTL there, and whether a majority does (--json: key, copies[] {node, state, value,
ttlMs, error}, held, quorum).

Exits 4 when a key does not exist (on no node, with --nodes; the others are still printed), 0 otherwise.
On a Cluster with a primary down, the keys of the other primaries are still printed and each key
of that primary is named on stderr with the node and its slots (--json: kind "unread", node,
slots, reason); the exit code is then 9 (partial).`;

/** Each read key with what its replicas hold; unread keys stay as they are, in their place. */
async function withReplicas(conn: Connection, keys: readonly string[], reads: readonly (LockView | UnreadKey)[]): Promise<(LockView | UnreadKey)[]> {
  const readAt = reads.flatMap((r, i) => (isUnread(r) ? [] : [i]));
  const views = await readOnReplicas(conn, readAt.map((i) => keys[i]!), readAt.map((i) => reads[i] as LockView));
  const out = [...reads];
  readAt.forEach((i, j) => (out[i] = views[j]!));
  return out;
}

/**
 * Prints views as text blocks (missing keys on stderr) or one JSON array; returns the exit code:
 * 9 when a Cluster primary could not be read (its keys named on stderr), else 4 when a key is missing.
 */
export function printViews(ctx: CommandContext, reads: readonly (LockView | UnreadKey)[], json: boolean): number {
  // Keys bsm/redislock's ObtainMulti holds with one value are one lock (src/core/decode/bsm.ts).
  const views = groupMultiKeyLocks(reads.filter((r): r is LockView => !isUnread(r)));
  const unread = reads.filter(isUnread);
  const missing = views.filter((v) => v.kind === 'missing');
  const readNote = readConsistencyNote(views);
  if (readNote) note(ctx, readNote);
  // With a primary unread, every key keeps its place in the array (ObtainMulti keys then stay apart).
  if (json) printJson(ctx, unread.length === 0 ? views : reads.map((r) => (isUnread(r) ? unreadJson(r) : r)));
  let first = true;
  for (const view of views) {
    if (json) break;
    const width = tableWidth(ctx);
    const block = formatLockView(view, { paint: paintFor(ctx, view.kind === 'missing' ? 'stderr' : 'stdout'), width });
    // On a terminal a long line wraps under its own text; piped, lines stay whole for grep.
    const lines = width === undefined ? block : block.flatMap((line) => wrapLine(line, width));
    if (view.kind === 'missing') {
      for (const line of lines) note(ctx, line);
      continue;
    }
    if (!first) print(ctx, '');
    first = false;
    for (const line of lines) print(ctx, line);
  }
  reportUnreadKeys(ctx, unread);
  return unread.length > 0 ? ExitCode.partial : missing.length > 0 ? ExitCode.notFound : ExitCode.ok;
}

/** `inspect <key...>`; returns the command so the live view can add its own options to it. */
export function registerInspect(program: Command, ctx: CommandContext): Command {
  const cmd = program
    .command('inspect')
    .summary('decode any lock found in Redis: holders, lease left, queue, readers, waiters (read-only)')
    .argument('<key...>', 'lock names (Redis keys)')
    .option('-k, --kind <kind>', 'read the data as this kind where it fits, e.g. latch for an integer string (default: recognise)')
    .option('--json', 'print a JSON array, one object per key (shape below)')
    .addHelpText('after', prose(ctx, HELP));
  addNodesOption(cmd);
  addConnectionOptions(cmd, { pubsub: false }); // read-only: never notifies
  // --watch / --interval / --once / --count: the live view lives in inspect/watch.ts.
  addWatchOptions(cmd).addHelpText('after', prose(ctx, WATCH_HELP));
  cmd.action(
    act(ctx, async (keys: string[], flags: InspectFlags) => {
      keys.forEach(checkKeyName);
      const nodes = redlockNodesOf(flags);
      if (nodes !== undefined) {
        // Loaded only with --nodes: a one-shot inspect of one server needs none of the Redlock reads.
        const { inspectAcrossNodes } = await import('./across-nodes.js');
        return inspectAcrossNodes(ctx, nodes, targetSpec(flags, ctx), keys, flags.json === true);
      }
      const kind = flags.kind !== undefined ? parseInspectKind(flags.kind) : undefined;
      if (wantsWatch(flags)) {
        return runInspectWatch(ctx, { keys, spec: targetSpec(flags, ctx), flags, read: (conn) => inspectKeys(conn, keys, { kind }) });
      }
      const conn = await connect(targetSpec(flags, ctx), { mode: 'one-shot', name: 'redlock-cli:inspect' });
      try {
        return printViews(ctx, await withReplicas(conn, keys, await inspectEach(conn, keys, { kind })), flags.json === true);
      } finally {
        await conn.close();
      }
    }),
  );
  return cmd;
}
