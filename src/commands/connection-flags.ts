import { Option, type Command } from 'commander';
import { DEFAULT_REPLY_TIMEOUT_MS, DEFAULT_URL, endpointUrl, formatHostPort } from '../core/endpoint.js';
import { UsageError } from '../core/errors.js';
import type { RunContext } from './context.js';
import type { ResolvedConnection } from './resolve-endpoint.js';

// The connection options, the way redis-cli users type them, before or after the command
// (`redlock-cli -u URL inspect k` and `redlock-cli inspect k -u URL`). The program declares them
// so commander takes them anywhere on the line; each command that connects declares them too, for
// its --help and the REPL's completion. One preAction hook hands the program's values to the
// command and resolves them once (resolve-endpoint.ts) into the endpoint targetSpec() returns.
// Saved targets, the sandbox and the password prompt load only when the line needs them: every
// command line declares these options, and `--version` or `inspect k -u URL` need none of that.

/** The command-line values every connecting command sees (after the hook). */
export interface ConnectionFlags {
  readonly target?: string;
  readonly url?: string;
  readonly sentinel?: string;
  readonly masterName?: string;
  readonly cluster?: string;
  readonly pubsub?: string;
  readonly nodes?: string;
  readonly host?: string;
  readonly port?: string;
  readonly pass?: string;
  readonly user?: string;
  readonly askpass?: boolean;
  readonly db?: string;
  readonly tls?: boolean;
  readonly cacert?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly insecure?: boolean;
  readonly sandbox?: string | true;
  readonly timeout?: string;
}

/** Their heading in --help, apart from each command's own options. */
export const CONNECTION_HELP_GROUP = 'Connection options (before or after the command, as in redis-cli):';

function connectionOptions(): Option[] {
  const options = [
    new Option(
      '-u, --url <url>',
      `redis://[user:pass@]host:port/db, rediss:// (TLS) or redis-sentinel://h:p,...#master (env REDIS_URL, default ${DEFAULT_URL})`,
    ),
    new Option('-h, --host <host>', "server host, as in redis-cli (replaces the URL's; help is --help)"),
    new Option('-p, --port <port>', 'server port'),
    new Option('-a, --pass <password>', 'password; it shows in ps and shell history: prefer REDISCLI_AUTH or --askpass'),
    new Option('--user <username>', 'ACL user name'),
    new Option('--askpass', 'ask for the password on the terminal, without echo'),
    new Option('-n, --db <db>', 'database number'),
    new Option('--tls', 'connect with TLS (as rediss://)'),
    new Option('--cacert <file>', 'CA certificate to verify the server with'),
    new Option('--cert <file>', 'client certificate (servers with tls-auth-clients)'),
    new Option('--key <file>', 'private key of --cert'),
    new Option('--insecure', 'do not verify the server certificate'),
    new Option('--sentinel <host:port,...>', 'connect through Redis Sentinel (needs --master-name)'),
    new Option('--master-name <name>', 'the master monitored by Sentinel'),
    new Option('--cluster <host:port,...>', 'a Redis Cluster through these seed nodes (a URL naming one node works too)'),
    new Option('--target <name>', 'a connection saved with `target add` (default: the one `target use` chose)'),
    new Option('--sandbox [name]', 'a sandbox that is up (default: the only one)'),
    new Option('--timeout <duration>', `how long to wait for each Redis reply before exit 3 (default ${DEFAULT_REPLY_TIMEOUT_MS / 1000}s)`),
  ];
  return options.map((o) => o.helpGroup(CONNECTION_HELP_GROUP));
}

/** The variables the connection options read, for the top-level --help (docs/connecting.md's table matches it). */
export const ENVIRONMENT_HELP = `Environment:
  REDIS_URL                 where to connect when no connection option is given (ignored when empty)
  REDISCLI_AUTH             password when neither -a nor the URL gives one (as in redis-cli)
  REDLOCK_PASSWORD_<NAME>   password of saved target NAME (upper-case, - as _)
  NO_COLOR                  plain output, as --no-color`;

/** `-h` typed for help meets the host option: say where help went. */
export function hostHint(message: string): string {
  return /'-h, --host <host>' argument missing/.test(message) ? `${message} (-h is the host, as in redis-cli: help is --help)` : message;
}

const SANDBOX = 'sandbox';
const OPTION_NAMES = connectionOptions().map((o) => o.attributeName());
/** Commands that take a connection through this module (the rest do not connect to Redis). */
const connecting = new WeakSet<Command>();
/** Of those, the ones whose --sandbox is a connection; the REPL attaches a sandbox itself. */
const sandboxAsConnection = new WeakSet<Command>();
/** Commands that save the connection (`target add`): where its URL argument is, if it has one. */
const saving = new WeakMap<Command, number | undefined>();

export interface DeclareOptions {
  /** false: the command handles --sandbox itself (the REPL). */
  readonly sandbox?: boolean;
  /** The connection is saved, not opened (`target add`): no REDISCLI_AUTH, no current or host target. */
  readonly saving?: boolean;
  /** The index of a positional argument that is the URL (`target add <name> [url]`). */
  readonly urlArgument?: number;
}

/** Declares the connection options on a command that talks to Redis; `sandbox: false` when it handles --sandbox itself. */
export function declareConnectionOptions(cmd: Command, opts: DeclareOptions = {}): Command {
  const withSandbox = opts.sandbox !== false;
  // A command that saves a connection describes one; it does not pick a saved one (--target).
  const left = new Set([...(withSandbox ? [] : [SANDBOX]), ...(opts.saving ? ['target'] : [])]);
  for (const option of connectionOptions()) if (!left.has(option.attributeName())) cmd.addOption(option);
  connecting.add(cmd);
  if (withSandbox) sandboxAsConnection.add(cmd);
  if (opts.saving) saving.set(cmd, opts.urlArgument);
  return cmd;
}

/** The program's copy: what makes `redlock-cli -u URL inspect k` and `inspect k -u URL` the same line. */
export function addProgramConnectionOptions(program: Command): void {
  for (const option of connectionOptions()) program.addOption(option);
}

const flagOf = (cmd: Command, name: string): string => cmd.options.find((o) => o.attributeName() === name)?.long ?? name;

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Hands the values commander gave the program to the command about to run, if it takes them. */
function copyProgramValues(program: Command, cmd: Command): void {
  if (program === cmd) return;
  for (const name of OPTION_NAMES) {
    if (program.getOptionValueSource(name) !== 'cli') continue;
    if (!cmd.options.some((o) => o.attributeName() === name)) {
      throw new UsageError(`${commandPath(cmd)} does not connect to Redis: drop ${flagOf(program, name)}`);
    }
    // Through the command's own parser: sandbox fault verbs refuse --url and --target there, by name.
    const option = cmd.options.find((o) => o.attributeName() === name)!;
    const value: unknown = program.getOptionValue(name);
    cmd.setOptionValueWithSource(name, option.parseArg && typeof value === 'string' ? option.parseArg(value, undefined) : value, 'cli');
  }
}

const typedOn = (cmd: Command) => (name: string): boolean => cmd.getOptionValueSource(name) === 'cli';
const hasOption = (cmd: Command, long: string): boolean => cmd.options.some((o) => o.long === long);

/** What each command's line resolved to, by its option values: read by the action through options.ts. */
const resolved = new WeakMap<object, ResolvedConnection & { readonly replay: readonly string[] }>();

/**
 * preAction hook: the program's connection values to the command, then the one resolution of
 * --sandbox, --target (or the current target), the host's target, URLs, redis-cli's flags and
 * the password sources into the command's endpoint.
 */
export async function applyConnectionOptions(program: Command, cmd: Command, ctx: RunContext): Promise<void> {
  copyProgramValues(program, cmd);
  if (!connecting.has(cmd)) return;
  const flags = cmd.opts() as ConnectionFlags;
  const typed = typedOn(cmd);
  const { resolveConnection } = await import('./resolve-endpoint.js');
  const urlArgument = saving.get(cmd);
  const connection = await resolveConnection(
    {
      flags,
      typed,
      sandboxConnects: sandboxAsConnection.has(cmd),
      takesNodes: hasOption(cmd, '--nodes'),
      locks: hasOption(cmd, '--owner'),
      saving: saving.has(cmd),
      urlArgument: urlArgument === undefined ? undefined : (cmd.processedArgs[urlArgument] as string | undefined),
    },
    ctx,
  );
  const redlockByDefault = connection.redlockByDefault && cmd.getOptionValueSource('kind') === 'default';
  resolved.set(flags, { ...connection, redlockByDefault, replay: replay(flags, typed, connection) });
}

/** The resolved connection of the command whose option values these are (set before its action runs). */
export function resolvedConnection(flags: object): ResolvedConnection {
  const found = resolved.get(flags);
  if (!found) throw new Error('the connection options were not resolved: the command must be declared with addConnectionOptions');
  return found;
}

/**
 * The connection options that reach the same server again, without a password (`--askpass`
 * stands for one typed on the line): hints such as "release it with: ..." must be commands that
 * work. Only what the line typed: what the host (the REPL) supplied, it supplies again.
 */
export function replayArgs(cmd: Command): readonly string[] {
  return resolved.get(cmd.opts())?.replay ?? [];
}

function replay(flags: ConnectionFlags, typed: (name: string) => boolean, connection: ResolvedConnection): string[] {
  // A sandbox the host attached (the REPL's) it supplies again, like any host target.
  if (typed('sandbox') && connection.sandbox !== undefined) return ['--sandbox', connection.sandbox];
  if (typed('target')) return ['--target', flags.target!];
  const ep = connection.endpoint;
  const where = ['url', 'host', 'port', 'user', 'db', 'tls', 'sentinel', 'cluster'].some(typed);
  const args: string[] = [];
  if (where && ep.clusterNodes) {
    args.push('--cluster', ep.clusterNodes.map(formatHostPort).join(','));
    if (ep.username !== undefined) args.push('--user', ep.username);
    if (ep.tls) args.push('--tls');
    if (ep.db !== 0) args.push('-n', String(ep.db));
  } else if (where) args.push('-u', endpointUrl(ep, 'drop'));
  for (const [name, flag] of [['cacert', '--cacert'], ['cert', '--cert'], ['key', '--key']] as const) {
    if (typed(name)) args.push(flag, flags[name]!);
  }
  if (typed('insecure')) args.push('--insecure');
  const typedPassword = typed('pass') || typed('askpass') || (typed('url') && ep.passwordFrom === 'url');
  if (typedPassword) args.push('--askpass');
  return args;
}
