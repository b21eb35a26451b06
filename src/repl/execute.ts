// One line of the REPL: tokenize, pick the client (`as`), then a REPL command or a CLI command
// through run(argv, ctx) with the target's connection options added.

import { UsageError } from '../core/errors.js';
import { tokenize } from '../core/repl/tokenize.js';
import { attachSandbox, dropStoppedSandbox } from './attach.js';
import { BUILTINS } from './builtins.js';
import type { ReplClient } from './clients.js';
import { hasOption, parseLine, type ParsedLine } from './command-tree.js';
import { commandPathOf } from './help.js';
import type { Job } from './jobs.js';
import type { ReplSession } from './session.js';
import { lineTarget, withTarget } from './target.js';

/** Commands after which what the clients hold may have changed. */
const LOCK_COMMANDS = new Set(['acquire', 'release', 'renew', 'force-unlock']);

/** Runs one typed line; errors are thrown for the session to print. */
export async function execute(session: ReplSession, line: string): Promise<void> {
  session.print(`${session.prompt()}${line}`, 'echo');
  const parsed = tokenize(line);
  if (!parsed.ok) throw new UsageError(parsed.error);
  const tokens = [...parsed.tokens];
  const last = tokens[tokens.length - 1];
  const background = last !== undefined && !last.quoted && last.value === '&';
  if (background) tokens.pop();
  let words = tokens.map((t) => t.value);
  let client = session.client(session.current);
  if (words[0] === 'as') {
    if (words.length < 3) throw new UsageError('as <client> <command...>: runs one command as that client, e.g. as B acquire orders');
    client = session.client(words[1]!);
    words = words.slice(2);
  }
  if (words.length === 0) return;
  const builtin = BUILTINS.find((b) => b.name === words[0]);
  if (builtin) {
    if (background) throw new UsageError(`${builtin.name} is a REPL command: only CLI commands run in the background with &`);
    return builtin.run(session, client, words.slice(1));
  }
  return runCli(session, client, words, background, line);
}

async function runCli(session: ReplSession, client: ReplClient, argv: string[], background: boolean, line: string): Promise<void> {
  const parsed = parseLine(session.tree, argv);
  // A first word that names no command: the error here suggests the REPL's commands too, which the CLI's cannot.
  if (parsed.path.length === 0 && parsed.positionals.length > 0) commandPathOf(session, parsed.positionals.slice(0, 1));
  const command = parsed.path[0]?.name;
  const help = parsed.flags.has('--help'); // -h is the host, as in redis-cli
  if (command === 'repl') throw new UsageError('already in the REPL');
  if (parsed.flags.has('--watch') && !parsed.flags.has('--json') && !help) {
    const keys = command === 'inspect' && parsed.positionals.length > 0 ? parsed.positionals.join(' ') : '<key...>';
    throw new UsageError(`the panel is the live view here: watch ${keys} (or add --json for one JSON line per tick)`);
  }
  if (command === 'hold' && !help) {
    startHold(session, client, argv, parsed, line);
    return;
  }
  if (command === 'release' && !help && !hasOption(parsed, '--owner')) {
    const job = holdJobOf(session, client.name, parsed.positionals[0]);
    if (job) {
      session.print(`stopping %${job.id} (${job.line}): the hold releases "${job.hold!.key}"`);
      await session.stopJob(job);
      return;
    }
  }
  const full = withTarget(session.tree, argv, session.target);
  if (background) {
    session.startJob(client, full, line);
    return;
  }
  const code = await session.runForeground(client, full, line, parsed);
  await afterCommand(session, parsed, argv, code);
}

/** `hold` keeps the lock until released: in the REPL it runs in the background and the panel shows it. */
function startHold(session: ReplSession, client: ReplClient, argv: string[], parsed: ParsedLine, line: string): void {
  const key = parsed.positionals[0];
  if (key === undefined) throw new UsageError('hold <key>: which lock?');
  const existing = holdJobOf(session, client.name, key);
  if (existing) throw new UsageError(`${client.name} already holds "${key}" in %${existing.id}: release ${key} first`);
  const rawJson = parsed.flags.has('--json');
  // Event lines as NDJSON: the panel needs the lease and renewals, and prints them in words.
  const withJson = rawJson ? argv : [...argv.slice(0, parsed.afterPath), '--json', ...argv.slice(parsed.afterPath)];
  session.startJob(client, withTarget(session.tree, withJson, session.target), line, { key, rawJson, ...lineTarget(session.tree, argv, session.target) });
}

function holdJobOf(session: ReplSession, client: string, key: string | undefined): Job | undefined {
  if (key === undefined) return undefined;
  return [...session.jobs.values()].find((j) => j.client === client && j.hold?.key === key);
}

/** The value of `--name x` / `--name=x` in argv. */
function optionValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1];
    if (argv[i]!.startsWith(`${flag}=`)) return argv[i]!.slice(flag.length + 1);
  }
  return undefined;
}

/** Follows what a command changed: held locks, a sandbox started here (attached) or stopped (detached). */
async function afterCommand(session: ReplSession, parsed: ParsedLine, argv: readonly string[], code: number | undefined): Promise<void> {
  const [command, verb] = parsed.path.map((c) => c.name);
  if (code === 0 && command === 'sandbox' && verb === 'up' && !parsed.flags.has('--help')) {
    const name = optionValue(argv, '--name') ?? 'default';
    session.startedSandboxes.add(name);
    await attachSandbox(session, name);
  }
  if (code === 0 && command === 'sandbox' && verb === 'down') await dropStoppedSandbox(session);
  if (command !== undefined && LOCK_COMMANDS.has(command)) session.afterLocksChanged();
  else session.refreshPanel();
}
