import { lookupCommand } from '../core/completion.js';
import { describeEndpoint } from '../core/endpoint.js';
import { UsageError } from '../core/errors.js';
import type { ReplHost } from './host.js';

/** What help says of a REPL command (builtins.ts lists them, passed in, so the two need not import each other). */
export interface BuiltinDoc {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  /** Lines as typed at the prompt, for `help <name>`. */
  readonly examples: readonly string[];
}

// `help` in the REPL: its own commands and the CLI's side by side, and the error for a command
// that is neither, with the nearest names of both (`wacth`: watch; `inspcet`: inspect).

/** What `help` prints: the REPL's commands, the CLI's, and how holding and keys work here. */
export function replHelp(session: ReplHost, builtins: readonly BuiltinDoc[]): string[] {
  const width = Math.max(...builtins.map((b) => b.usage.length));
  // The CLI's `help` is the REPL's here: listed once, with the REPL's commands.
  const commands = session.tree.subcommands.filter((c) => !c.hidden && !builtins.some((b) => b.name === c.name));
  const cmdWidth = Math.max(...commands.map((c) => c.name.length));
  return [
    'REPL commands:',
    ...builtins.map((b) => `  ${b.usage.padEnd(width)}  ${b.summary}`),
    '',
    `CLI commands, as outside (they connect to the target, ${describeEndpoint(session.state.target.target.spec)}, unless given their own connection options):`,
    ...commands.map((c) => `  ${c.name.padEnd(cmdWidth)}  ${c.description}`),
    '',
    'Holding: `hold <key>` runs in the background here, so the prompt stays yours; the panel shows the',
    'lock with its lease and watchdog renewals. `release <key>` by the same client (or `cancel %id`)',
    'ends the hold, which releases the lock like Ctrl-C does outside the REPL. `acquire` takes the lock',
    'and leaves it to its lease. Any other command runs in the background when the line ends with " &".',
    '',
    'Each client has its own owner id (UUID and thread, like one Redisson client) and connection:',
    '`as B acquire k` contends with A exactly like two services would.',
    '',
    'Keys: Tab completes commands, options, clients and keys; Up/Down walk the history (kept across',
    'sessions); Ctrl-C cancels the running command (again: stop waiting for it), or clears the line;',
    'Ctrl-U / Ctrl-W erase; Ctrl-D on an empty line leaves.',
  ];
}

/** `help <REPL command>`: its usage, what it does and examples; undefined for anything else. */
export function builtinHelp(builtins: readonly BuiltinDoc[], words: readonly string[]): string[] | undefined {
  const builtin = builtins.find((b) => b.name === words[0]);
  if (!builtin) return undefined;
  if (words.length > 1) throw new UsageError(`unknown command '${words.join(' ')}': ${builtin.name} has no subcommands`);
  return [`Usage: ${builtin.usage}`, '', builtin.summary, '', 'Examples:', ...builtin.examples.map((e) => `  ${e}`)];
}

/**
 * The CLI command path the words name (`sandbox up`), or a usage error: an unknown first word is
 * matched against the REPL's commands as well as the CLI's.
 */
export function commandPathOf(session: ReplHost, builtins: readonly BuiltinDoc[], words: readonly string[]): string[] {
  const found = lookupCommand(session.tree, words, builtins.map((b) => b.name));
  if (found.ok) return found.path.map((c) => c.name);
  // Nothing near: say where the names are.
  const hint = found.nearest.length > 0 || found.leaf ? '' : found.under ? `: help ${found.under} lists its commands` : ': help lists the commands';
  throw new UsageError(`${found.message}${hint}`);
}
