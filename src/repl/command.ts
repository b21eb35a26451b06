import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS } from '../core/poller.js';
import { act, type CommandContext } from '../commands/context.js';
import { resolvedConnection } from '../commands/connection-flags.js';
import { addConnectionOptions, durationFlag, type ConnectionFlags } from '../commands/options.js';
import { prose } from '../commands/help-text.js';

interface ReplFlags extends ConnectionFlags {
  readonly clients?: string;
  readonly interval?: string;
  readonly sandbox?: string | true;
}

const HELP = `
A prompt for every command, as one or more named clients, under a live panel of the locks you
watch and hold. Each client (A and B to start with) has its own Redisson-style owner id and its
own connection, so \`as A acquire k\` and \`as B acquire k\` contend like two services. \`hold\` runs
in the background with the panel showing its lease and renewals; \`release <key>\` ends it. Type
\`help\` inside for the REPL's own commands (as, use, clients, watch, connect, attach, jobs, exit).

With no arguments on a terminal, redlock-cli starts the REPL.

Examples:
  redlock-cli repl
  redlock-cli repl --url redis://127.0.0.1:6380 --clients web,worker
  redlock-cli repl --sandbox`;

/** `repl`: ink and the REPL load only when it runs. */
export function registerRepl(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('repl')
    .summary('interactive: act as several named clients with a live panel of the locks')
    .option('--clients <names>', 'clients to start with, comma-separated (default A,B)')
    .option('--interval <duration>', `panel refresh (default ${DEFAULT_INTERVAL_MS / 1000}s, at least ${MIN_INTERVAL_MS}ms)`)
    .option('--sandbox [name]', 'attach a sandbox at start (default: the only one up)')
    .addHelpText('after', prose(ctx, HELP));
  addConnectionOptions(cmd, { sandbox: false }); // its own --sandbox attaches the sandbox
  cmd.action(
    act(ctx, async (flags: ReplFlags) => {
      if (ctx.stdin?.isTTY !== true || ctx.stdout.isTTY !== true) {
        throw new UsageError('the REPL needs a terminal on stdin and stdout: run commands directly instead, e.g. redlock-cli acquire <key>');
      }
      const clients = flags.clients?.split(',').map((c) => c.trim()).filter((c) => c !== '');
      if (clients && clients.length === 0) throw new UsageError('--clients needs at least one name, e.g. --clients A,B');
      const intervalMs = Math.max(MIN_INTERVAL_MS, durationFlag(flags.interval, '--interval') ?? DEFAULT_INTERVAL_MS);
      const [{ startRepl }, { flagsTarget }] = await Promise.all([import('./start.js'), import('./target.js')]);
      return startRepl(ctx, { target: flagsTarget(resolvedConnection(flags)), clients, intervalMs, sandbox: flags.sandbox });
    }),
  );
}
