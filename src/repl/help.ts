import { BUILTINS } from './builtins.js';
import type { ReplSession } from './session.js';

/** What `help` prints: the REPL's commands, the CLI's, and how holding and keys work here. */
export function replHelp(session: ReplSession): string[] {
  const width = Math.max(...BUILTINS.map((b) => b.usage.length));
  const commands = session.tree.subcommands.filter((c) => !c.hidden);
  const cmdWidth = Math.max(...commands.map((c) => c.name.length));
  return [
    'REPL commands:',
    ...BUILTINS.map((b) => `  ${b.usage.padEnd(width)}  ${b.summary}`),
    '',
    `CLI commands, as outside (they get the target's connection options, ${session.target.args.join(' ')}, unless given their own):`,
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
