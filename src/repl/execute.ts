// One line of the REPL: tokenize, pick the client (`as`), then a REPL command or a CLI command
// through run(argv, ctx) with the target's connection options added. What a command did comes
// back as typed outcomes, which the session folds into its state as they arrive.

import { UsageError } from '../core/errors.js';
import { tokenize } from '../core/repl/tokenize.js';
import { attachSandbox } from './attach.js';
import { BUILTINS } from './builtins.js';
import type { ReplClient } from './clients.js';
import { hasOption, parseLine, type ParsedLine } from './command-tree.js';
import { commandPathOf } from './help.js';
import type { ReplHost } from './host.js';

/** Runs one typed line; errors are thrown for the session to print. */
export async function execute(session: ReplHost, line: string): Promise<void> {
  session.print(`${session.prompt()}${line}`, 'echo');
  const parsed = tokenize(line);
  if (!parsed.ok) throw new UsageError(parsed.error);
  const tokens = [...parsed.tokens];
  const last = tokens[tokens.length - 1];
  const background = last !== undefined && !last.quoted && last.value === '&';
  if (background) tokens.pop();
  let words = tokens.map((t) => t.value);
  let client = session.client(session.state.current);
  if (words[0] === 'as') {
    if (words.length < 3)
      throw new UsageError('as <client> <command...>: runs one command as that client, e.g. as B acquire orders');
    client = session.client(words[1]!);
    words = words.slice(2);
  }
  if (words.length === 0) return;
  const builtin = BUILTINS.find((b) => b.name === words[0]);
  if (builtin) {
    if (background)
      throw new UsageError(`${builtin.name} is a REPL command: only CLI commands run in the background with &`);
    return builtin.run(session, client, words.slice(1));
  }
  return runCli(session, client, words, background, line);
}

async function runCli(
  session: ReplHost,
  client: ReplClient,
  argv: string[],
  background: boolean,
  line: string,
): Promise<void> {
  if (argv[0] === 'repl') throw new UsageError('already in the REPL');
  const parsed = parseLine(session.tree, argv);
  // A first word that names no command: the error here suggests the REPL's commands too, which the CLI's cannot.
  if (parsed.path.length === 0 && parsed.positionals.length > 0)
    commandPathOf(session, BUILTINS, parsed.positionals.slice(0, 1));
  const command = parsed.path[0]?.name;
  const help = parsed.flags.has('--help'); // -h is the host, as in redis-cli
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
      await session.stopJob(job.id);
      return;
    }
  }
  const target = session.state.target.target;
  if (background) {
    session.startJob(client, argv, line, undefined, { target });
    return;
  }
  const run = await session.runForeground(client, argv, line, parsed, { target });
  // A sandbox started here is attached: commands go to it, its nodes join the panel.
  const up = run.outcomes.find((o) => o.type === 'sandbox-up');
  if (up) await attachSandbox(session, up.name);
  session.refreshPanel();
}

/**
 * `hold` keeps the lock until released: in the REPL it runs in the background, its events come
 * back as outcomes (the panel shows the lease and renewals, the output area says them in words)
 * and its own output, a held command's included, shows as it is.
 */
function startHold(session: ReplHost, client: ReplClient, argv: string[], parsed: ParsedLine, line: string): void {
  const key = parsed.positionals[0];
  if (key === undefined) throw new UsageError('hold <key>: which lock?');
  const existing = holdJobOf(session, client.name, key);
  if (existing) throw new UsageError(`${client.name} already holds "${key}" in %${existing.id}: release ${key} first`);
  const rawJson = parsed.flags.has('--json');
  session.startJob(client, argv, line, { key, rawJson }, { target: session.state.target.target, showsHoldEvents: !rawJson });
}

function holdJobOf(session: ReplHost, client: string, key: string | undefined) {
  if (key === undefined) return undefined;
  return session.state.jobs.find((j) => j.client === client && j.hold?.key === key);
}
