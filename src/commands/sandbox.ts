import { Option, type Command } from 'commander';
import { formatDuration } from '../core/duration.js';
import { NotFoundError, UsageError } from '../core/errors.js';
import { optionalCount } from '../core/count.js';
import { ExitCode } from '../core/exit-codes.js';
import { NODES_BOUNDS, REPLICAS_BOUNDS } from '../sandbox/plan.js';
import { listSandboxes, loadSandbox, startSandbox, TOPOLOGIES, withFakeClocks, type SandboxHandle, type StartOptions, type TopologyName } from '../sandbox/index.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { formatStatus, formatUrls, sandboxJson } from './sandbox/output.js';
import { tableWidth } from './context.js';
import { proxyFactory, SANDBOX_VERBS, type SandboxVerb } from './sandbox/verbs.js';
import { prose } from './help-text.js';
import { redisServerOption } from './options.js';
import { sandboxCommand } from '../core/sandbox-hint.js';

const HELP = `
Every node is a redis-server (or sentinel) in the foreground, never daemonised, bound to 127.0.0.1
on a free port, without persistence. It runs in its own session, detached from this terminal, so
\`up\` can return while the servers keep running; their pids, ports and roles are in
$XDG_STATE_HOME/redlock-cli/sandboxes/<name>/sandbox.json (default ~/.local/state), next to one
directory per node with its config and log. \`down\` and the fault verbs signal a pid only after
checking it is still that node (its config path in /proc/<pid>/cmdline, its working directory):
nothing else on the machine is ever touched.

Exit codes here: 2 a bad option, or a verb on a node that is not running; 3 the topology did not
form or a failover did not complete in time; 4 no such sandbox or node; 130 Ctrl-C (during \`up\`:
everything already started is stopped first).

Examples:
  redlock-cli sandbox up --topology sentinel
  redlock-cli sandbox status
  redlock-cli sandbox pause primary --for 3s
  redlock-cli sandbox failover
  redlock-cli sandbox down`;

interface UpFlags {
  readonly topology: TopologyName;
  readonly name?: string;
  readonly nodes?: string;
  readonly replicas?: string;
  readonly redisServer?: string;
  readonly proxy?: boolean;
  readonly fakeClock?: boolean;
  readonly json?: boolean;
}

/** `status` and `down` take the sandbox as an argument or, like the verbs, as --name. */
function nameArg(arg: string | undefined, flag: string | undefined): string | undefined {
  if (arg !== undefined && flag !== undefined && arg !== flag) throw new UsageError(`two sandbox names given: "${arg}" and --name ${flag}`);
  return arg ?? flag;
}

/** --fake-clock: libfaketime where it works, otherwise say why `clock` will rewrite TTLs instead. */
async function fakeClockOptions(ctx: CommandContext, options: StartOptions): Promise<StartOptions> {
  const { options: withClocks, support } = await withFakeClocks(options, ctx.env);
  if (support.method !== 'faketime') note(ctx, `--fake-clock: ${support.reason}; clock will rewrite TTLs instead`);
  return withClocks;
}

function inherit(parent: Command, cmd: Command): Command {
  return cmd.exitOverride().configureOutput(parent.configureOutput());
}

function registerUp(sandbox: Command, ctx: CommandContext): void {
  const cmd = sandbox
    .command('up')
    .summary('start a topology on free loopback ports and print how to connect to it')
    .addOption(new Option('-t, --topology <topology>', 'what to start').choices(TOPOLOGIES).default('single'))
    .option('--name <name>', 'sandbox name, to run several side by side', 'default')
    .option('--nodes <n>', 'redlock: how many independent primaries (default 5)')
    .option('--replicas <n>', 'cluster: replicas per primary, 0 or 1 (default 0)')
    .addOption(redisServerOption())
    .option('--proxy', 'put a TCP fault proxy in front of every node (for latency / partition)')
    .option('--fake-clock', 'run every redis node under libfaketime, so `clock` moves its real clock (costs throughput; without it `clock` rewrites TTLs)')
    .option('--json', 'print the nodes and connection URLs as JSON');
  inherit(sandbox, cmd).action(act(ctx, async (flags: UpFlags) => {
    const started = Date.now();
    const options: StartOptions = {
      topology: flags.topology,
      name: flags.name,
      nodes: optionalCount(flags.nodes, '--nodes', NODES_BOUNDS),
      replicas: optionalCount(flags.replicas, '--replicas', REPLICAS_BOUNDS),
      redisServer: flags.redisServer,
      env: ctx.env,
      persist: true,
      signal: ctx.signal,
      proxy: flags.proxy ? await proxyFactory() : undefined,
      // Progress only for a person watching: a pipe or a script gets the result alone.
      onProgress: flags.json || !ctx.stderr.isTTY ? undefined : (line) => note(ctx, line),
    };
    const handle = await startSandbox(flags.fakeClock ? await fakeClockOptions(ctx, options) : options);
    const formedMs = Date.now() - started;
    ctx.emit?.({ type: 'sandbox-up', name: handle.name, topology: handle.topology });
    if (flags.json) {
      printJson(ctx, sandboxJson(handle, formedMs));
      return ExitCode.ok;
    }
    print(ctx, `sandbox "${handle.name}" is up: ${handle.topology}, ${handle.nodes.length} processes, formed in ${formatDuration(formedMs)}`);
    for (const line of formatUrls(handle.urls)) print(ctx, line);
    for (const line of formatStatus(await handle.status(), tableWidth(ctx)).slice(1)) print(ctx, line);
    const failover = handle.topology === 'sentinel' || handle.topology === 'replicated' ? `, ${sandboxCommand(handle.name, 'failover')}` : '';
    note(ctx, `break it: ${sandboxCommand(handle.name, 'kill|pause|restart|resume', '<node>')}${failover}; stop it: ${sandboxCommand(handle.name, 'down')}`);
    return ExitCode.ok;
  }));
}

async function printStatus(ctx: CommandContext, sandbox: SandboxHandle, json: boolean): Promise<void> {
  const status = await sandbox.status();
  if (json) printJson(ctx, status);
  else for (const line of formatStatus(status, tableWidth(ctx))) print(ctx, line);
}

function registerStatus(sandbox: Command, ctx: CommandContext): void {
  const cmd = sandbox
    .command('status')
    .summary('roles, replication offsets and lag, paused and killed nodes of one sandbox, or of all')
    .argument('[name]', 'sandbox name (default: every sandbox that is up)')
    .option('--name <name>', 'the same as the argument')
    .option('--json', 'print the status as JSON (an array without a name)');
  inherit(sandbox, cmd).action(act(ctx, async (arg: string | undefined, flags: { name?: string; json?: boolean }) => {
    const name = nameArg(arg, flags.name);
    if (name !== undefined) {
      await printStatus(ctx, await loadSandbox(name, { env: ctx.env }), flags.json === true);
      return ExitCode.ok;
    }
    const { live, cleaned } = await listSandboxes({ env: ctx.env });
    for (const c of cleaned) note(ctx, `cleaned up stale sandbox "${c.name}": ${c.reason}`);
    const statuses = await Promise.all(live.map(async (n) => (await loadSandbox(n, { env: ctx.env })).status()));
    if (flags.json) printJson(ctx, statuses);
    else if (statuses.length === 0) note(ctx, 'no sandbox is up: start one with: redlock-cli sandbox up');
    else print(ctx, statuses.map((s) => formatStatus(s, tableWidth(ctx)).join('\n')).join('\n\n'));
    return ExitCode.ok;
  }));
}

function registerDown(sandbox: Command, ctx: CommandContext): void {
  const cmd = sandbox
    .command('down')
    .summary('stop every process of a sandbox (by checked pid) and remove its directory')
    .argument('[name]', 'sandbox name (default: the only one up, or "default")')
    .option('--name <name>', 'the same as the argument')
    .option('--all', 'stop every sandbox')
    .option('--json', 'print what was stopped as JSON');
  inherit(sandbox, cmd).action(act(ctx, async (arg: string | undefined, flags: { name?: string; all?: boolean; json?: boolean }) => {
    const name = nameArg(arg, flags.name);
    if (flags.all && name !== undefined) throw new UsageError('give a sandbox name or --all, not both');
    const { live, cleaned } = flags.all ? await listSandboxes({ env: ctx.env }) : { live: [name], cleaned: [] };
    for (const c of cleaned) note(ctx, `cleaned up stale sandbox "${c.name}": ${c.reason}`);
    const stopped = [];
    for (const n of live) {
      // Teardown is idempotent, as in `docker compose down`: nothing to stop is a note, not a failure.
      const handle = await loadSandbox(n, { env: ctx.env }).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
        note(ctx, `nothing to stop: ${err.message.replace(/: start (it|one) with: .*$/, '')}`);
        if (n !== undefined) ctx.emit?.({ type: 'sandbox-down', name: n }); // down already, by other hands
      });
      if (!handle) continue;
      const result = await handle.stop();
      stopped.push({ name: handle.name, ...result });
      ctx.emit?.({ type: 'sandbox-down', name: handle.name });
      if (!flags.json) print(ctx, `stopped sandbox "${handle.name}": ${result.stopped} process(es) killed${result.gone > 0 ? `, ${result.gone} already gone` : ''}; removed ${handle.dir}`);
    }
    if (flags.json) printJson(ctx, { stopped });
    else if (stopped.length === 0 && flags.all) note(ctx, 'nothing to stop: no sandbox is up');
    return ExitCode.ok;
  }));
}

// Every other command takes these; a fault verb refuses them by name instead of commander's bare
// "unknown option", because it acts only on processes this tool started, never on a given server.
// The refusal is the option's parser, so it comes while parsing: before the --target hook would
// look the target up (or prompt for its password).
const TARGET_FLAGS = [
  ['url', '-u, --url <url>'],
  ['sentinel', '--sentinel <hosts>'],
  ['cluster', '--cluster <hosts>'],
  ['target', '--target <name>'],
] as const;

function refusedTarget(verb: string, flag: string, spec: string): Option {
  return new Option(spec).hideHelp().argParser(() => {
    throw new UsageError(
      `sandbox ${verb} acts only on a sandbox this tool started, not on --${flag}: start one with redlock-cli sandbox up and point your application at it`,
    );
  });
}

function registerVerb(sandbox: Command, ctx: CommandContext, verb: SandboxVerb): void {
  const cmd = sandbox.command(verb.name).summary(verb.summary).description(verb.summary);
  if (verb.argument) cmd.argument(verb.argument.spec, verb.argument.description);
  for (const option of verb.options ?? []) cmd.addOption(option);
  cmd.option('--name <name>', 'the sandbox (default: the only one up, or "default")').option('--json', 'print what was done and the status after it as JSON');
  for (const [flag, spec] of TARGET_FLAGS) cmd.addOption(refusedTarget(verb.name, flag, spec));
  inherit(sandbox, cmd).action(act(ctx, async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const flags = command.opts<{ name?: string; json?: boolean }>();
    const handle = await loadSandbox(flags.name, { env: ctx.env });
    const { action, later } = await verb.run(handle, verb.argument ? (args[0] as string) : undefined, flags, ctx);
    if (!flags.json) print(ctx, action.message);
    const actions = [action];
    if (later) {
      const next = await later;
      actions.push(next);
      if (!flags.json) print(ctx, next.message);
    }
    const status = await handle.status();
    if (flags.json) printJson(ctx, { actions, status });
    else for (const line of formatStatus(status, tableWidth(ctx))) print(ctx, line);
    return ctx.signal?.aborted ? ExitCode.interrupted : ExitCode.ok;
  }));
}

/** `redlock-cli sandbox ...`: up, status, down, and the fault verbs of SANDBOX_VERBS. */
export function registerSandbox(program: Command, ctx: CommandContext): void {
  const sandbox = program
    .command('sandbox')
    .summary('start real Redis topologies on loopback and break them on command')
    .description('Start real Redis topologies (single, replicated, sentinel, redlock, cluster) on loopback and break them on command.')
    .addHelpText('after', prose(ctx, HELP));
  registerUp(sandbox, ctx);
  registerStatus(sandbox, ctx);
  registerDown(sandbox, ctx);
  for (const verb of SANDBOX_VERBS) registerVerb(sandbox, ctx, verb);
}
