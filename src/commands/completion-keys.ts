import { Command } from 'commander';
import type { Candidate } from '../core/completion.js';
import { scanLocks } from '../inspect/scan-locks.js';
import { connect, type Connection } from '../redis/connection.js';
import { applyConnectionOptions, declareConnectionOptions } from './connection-flags.js';
import type { RunContext } from './context.js';
import { targetSpec } from './options.js';

// Lock keys for a Tab where a key goes, from the server the line would connect to: its -u / -p /
// --cluster / --sentinel / --target / --sandbox, else REDIS_URL or the current target, resolved
// by the same hook every command runs. Bounded: whatever the server has said when the time is up
// is what Tab offers, and a Tab never asks for a password.

/** Keys offered at most, and the time the whole lookup (connect, SCAN, close) may take by default. */
export const KEY_LIMIT = 200;
export const KEY_BUDGET_MS = 100;
/** A server far away (a VPN, another region) needs longer than a Tab usually gets: the user says how long. */
export const BUDGET_ENV = 'REDLOCK_CLI_COMPLETE_MS';

/** The budget: REDLOCK_CLI_COMPLETE_MS when it is a whole number of ms from 1 to 10000, else the default. */
export function keyBudgetMs(env: Readonly<Record<string, string | undefined>>): number {
  const ms = Number(env[BUDGET_ENV]);
  return Number.isInteger(ms) && ms >= 1 && ms <= 10_000 ? ms : KEY_BUDGET_MS;
}

/** SCAN's MATCH pattern for names starting with `prefix` (its glob characters escaped). */
export const prefixPattern = (prefix: string): string => `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;

/** The connection flags typed on the line, as argv for a command that declares only those. */
function connectionArgv(typed: ReadonlyMap<string, string>, given: ReadonlySet<string>, options: Command['options']): string[] {
  return options.flatMap((o) => {
    const value = typed.get(o.long!);
    if (value !== undefined) return [o.long!, value];
    return given.has(o.long!) && !o.required ? [o.long!] : [];
  });
}

/** The connection the line describes, resolved by the hook every command runs; undefined when it cannot be (no prompt on a Tab). */
async function lineTarget(ctx: RunContext, typed: ReadonlyMap<string, string>, given: ReadonlySet<string>, budgetMs: number) {
  const noTerminal: RunContext = { ...ctx, stdin: undefined };
  const program = new Command('redlock-cli').exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  const cmd = declareConnectionOptions(new Command('keys').exitOverride());
  program.addCommand(cmd);
  let spec: ReturnType<typeof targetSpec> | undefined;
  cmd.action((flags) => void (spec = targetSpec(flags, noTerminal)));
  program.hook('preAction', (_p, action) => applyConnectionOptions(program, action, noTerminal));
  await program.parseAsync(['keys', ...connectionArgv(typed, given, cmd.options)], { from: 'user' });
  return spec ? { ...spec, replyTimeoutMs: budgetMs } : undefined;
}

/** Lock keys starting with `prefix` on the line's server, described by their kind; [] when it does not answer in time. */
export async function lockKeys(
  ctx: RunContext,
  line: { readonly typed: ReadonlyMap<string, string>; readonly given: ReadonlySet<string> },
  prefix: string,
  budgetMs = keyBudgetMs(ctx.env),
): Promise<Candidate[]> {
  const found: Candidate[] = [];
  const stop = new AbortController();
  let conn: Connection | undefined;
  const lookup = (async () => {
    const spec = await lineTarget(ctx, line.typed, line.given, budgetMs);
    if (!spec || stop.signal.aborted) return;
    conn = await connect(spec, { mode: 'one-shot', name: 'redlock-cli:complete', connectTimeoutMs: budgetMs });
    const scan = scanLocks(conn, { pattern: prefixPattern(prefix), limit: KEY_LIMIT, signal: stop.signal, onUnread: () => undefined });
    for await (const batch of scan) for (const { view } of batch) found.push({ value: view.key, description: view.kind });
  })().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([lookup, new Promise((resolve) => (timer = setTimeout(resolve, budgetMs)))]);
  clearTimeout(timer);
  stop.abort();
  // Dropped, not QUIT: a Tab does not wait for a goodbye, and a late connect is dropped as it lands.
  conn?.client.disconnect();
  void lookup.then(() => conn?.client.disconnect());
  return found.sort((a, b) => a.value.localeCompare(b.value));
}
