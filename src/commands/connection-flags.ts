import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { overrideUrl, parseDb, parsePort, urlHasPassword, type UrlOverrides } from '../core/url-overrides.js';
import { DEFAULT_REPLY_TIMEOUT_MS, DEFAULT_URL, formatHostPort, parseSentinelUrl } from '../redis/target.js';
import type { RunContext } from './context.js';

// The connection options, the way redis-cli users type them, before or after the command
// (`redlock-cli -u URL inspect k` and `redlock-cli inspect k -u URL`). The program declares them
// so commander takes them anywhere on the line; each command that connects declares them too, for
// its --help and the REPL's completion. One preAction hook hands the program's values to the
// command and resolves --sandbox, --target (or the current target), redis-cli's flags,
// REDISCLI_AUTH and --askpass into the plain --url/--sentinel/--cluster that targetSpec() reads.
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
/** Commands that take a connection through this module (the rest: race, target add, keep their own meaning). */
const connecting = new WeakSet<Command>();
/** Of those, the ones whose --sandbox is a connection; the REPL attaches a sandbox itself. */
const sandboxAsConnection = new WeakSet<Command>();

/** Declares the connection options on a command that talks to Redis; `sandbox: false` when it handles --sandbox itself. */
export function declareConnectionOptions(cmd: Command, opts: { readonly sandbox?: boolean } = {}): Command {
  const withSandbox = opts.sandbox !== false;
  for (const option of connectionOptions()) if (withSandbox || option.attributeName() !== SANDBOX) cmd.addOption(option);
  connecting.add(cmd);
  if (withSandbox) sandboxAsConnection.add(cmd);
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

const given = (cmd: Command, name: string): boolean => cmd.getOptionValueSource(name) === 'cli';
const set = (cmd: Command, name: string, value: unknown): void => void cmd.setOptionValueWithSource(name, value, 'config');

/** --sandbox [name]: the sandbox's own connection (its primary, sentinels, cluster seeds or Redlock nodes). */
async function applySandboxOption(cmd: Command, ctx: RunContext): Promise<string | undefined> {
  const name = cmd.getOptionValue(SANDBOX) as string | true | undefined;
  if (name === undefined || !sandboxAsConnection.has(cmd)) return undefined;
  const clash = ['url', 'sentinel', 'cluster', 'target', 'host', 'port'].filter((n) => given(cmd, n));
  if (clash.length > 0) throw new UsageError(`--sandbox already says where to connect: drop ${clash.map((n) => flagOf(cmd, n)).join(' and ')}`);
  const { loadSandbox } = await import('../sandbox/index.js');
  const sandbox = await loadSandbox(name === true ? undefined : name, { env: ctx.env, howToName: '--sandbox <name>' });
  const { urls } = sandbox;
  if (urls.sentinel) {
    set(cmd, 'sentinel', urls.sentinel.hosts.join(','));
    set(cmd, 'masterName', urls.sentinel.masterName);
  } else if (urls.cluster) set(cmd, 'cluster', urls.cluster.seeds.join(','));
  const nodes = Object.values(urls.nodes);
  set(cmd, 'url', urls.primary ?? nodes[0] ?? DEFAULT_URL);
  if (sandbox.topology === 'redlock') {
    // Lock commands on a Redlock sandbox lock on all its nodes unless told otherwise.
    if (cmd.options.some((o) => o.long === '--nodes') && cmd.getOptionValue('nodes') === undefined) set(cmd, 'nodes', nodes.join(','));
    if (cmd.options.some((o) => o.long === '--kind') && cmd.getOptionValueSource('kind') === 'default') set(cmd, 'kind', 'redlock');
  }
  return sandbox.name;
}

/** --target NAME, or the current target when nothing on the line or in REDIS_URL says where. */
async function applyTarget(cmd: Command, ctx: RunContext): Promise<void> {
  const explicit = cmd.getOptionValue('target') as string | undefined;
  if (explicit !== undefined) return (await import('./target-use.js')).applyTargetOption(cmd, ctx, explicit);
  const saysWhere = ['url', 'sentinel', 'cluster', 'host', 'port', SANDBOX].some((n) => cmd.getOptionValue(n) !== undefined);
  if (saysWhere || nonEmpty(ctx.env.REDIS_URL) !== undefined) return;
  const [{ loadCurrentTarget }, { applyTargetOption }] = await Promise.all([import('../state/targets.js'), import('./target-use.js')]);
  const current = loadCurrentTarget(ctx.env);
  if (current === undefined) return;
  set(cmd, 'target', current); // the REPL names it in its prompt
  await applyTargetOption(cmd, ctx, current);
}

const nonEmpty = (text: string | undefined): string | undefined => (text === undefined || text.trim() === '' ? undefined : text);

/** A redis-sentinel:// URL becomes --sentinel/--master-name plus the master's credentials. */
function expandSentinelUrl(cmd: Command, url: string): string {
  const spec = parseSentinelUrl(url);
  if (!spec) return url;
  if (given(cmd, 'sentinel') || given(cmd, 'cluster')) throw new UsageError('a redis-sentinel:// URL names its sentinels: drop --sentinel/--cluster');
  set(cmd, 'sentinel', spec.sentinels!.map(formatHostPort).join(','));
  set(cmd, 'masterName', spec.masterName);
  return spec.url;
}

/** The password: --askpass, else -a/--pass, else the URL's own, else REDISCLI_AUTH (not for a sandbox: it has none). */
async function passwordFor(flags: ConnectionFlags, url: string, ctx: RunContext, sandbox: boolean): Promise<string | undefined> {
  if (flags.askpass) {
    const { promptPassword, rawTerminal } = await import('./password-prompt.js');
    const terminal = rawTerminal(ctx);
    if (!terminal) throw new UsageError('--askpass needs a terminal to ask on: set REDISCLI_AUTH instead');
    return promptPassword(ctx, terminal, 'Please input password: ');
  }
  if (flags.pass !== undefined) return flags.pass;
  return urlHasPassword(url) || sandbox ? undefined : nonEmpty(ctx.env.REDISCLI_AUTH);
}

/** -h -p -a --user -n --tls, REDISCLI_AUTH and --askpass, applied to the URL the rest chose. */
async function applyRedisCliFlags(cmd: Command, ctx: RunContext): Promise<void> {
  const flags = cmd.opts() as ConnectionFlags;
  if ((flags.host !== undefined || flags.port !== undefined) && (flags.sentinel !== undefined || flags.cluster !== undefined)) {
    throw new UsageError('-h/-p name one server; with --sentinel or --cluster the seed list says where: drop -h/-p');
  }
  const url = expandSentinelUrl(cmd, flags.url ?? nonEmpty(ctx.env.REDIS_URL) ?? DEFAULT_URL);
  const overrides: UrlOverrides = {
    host: flags.host,
    port: flags.port !== undefined ? parsePort(flags.port) : undefined,
    user: flags.user,
    password: await passwordFor(flags, url, ctx, flags.sandbox !== undefined && sandboxAsConnection.has(cmd)),
    db: flags.db !== undefined ? parseDb(flags.db) : undefined,
    tls: flags.tls,
  };
  // Nothing given and nothing to change: leave --url unset, so REDIS_URL or the default applies as it always did.
  const untouched = flags.url === undefined && url === (nonEmpty(ctx.env.REDIS_URL) ?? DEFAULT_URL) && Object.values(overrides).every((v) => v === undefined);
  if (!untouched) set(cmd, 'url', overrideUrl(url, overrides));
  // Redlock nodes share the credentials given once, so they need not be written into each URL.
  if (flags.nodes !== undefined && (overrides.password !== undefined || overrides.user !== undefined)) {
    const nodes = flags.nodes.split(',').map((n) => n.trim()).filter((n) => n !== '');
    const withAuth = nodes.map((n) => (n.includes('://') ? n : `redis://${n}`)).map((n) =>
      urlHasPassword(n) ? n : overrideUrl(n, { user: overrides.user, password: overrides.password }),
    );
    set(cmd, 'nodes', withAuth.join(','));
  }
}

/** Refuses --url with --cluster: typed together, the two disagree on where to go. */
function checkUrlWithCluster(cmd: Command): void {
  if (given(cmd, 'url') && given(cmd, 'cluster')) {
    throw new UsageError('use either --url (one server) or --cluster (its seed nodes), not both: a Cluster password goes in REDIS_URL');
  }
}

/**
 * preAction hook: the program's connection values to the command, then --sandbox, --target (or
 * the current target), a redis-sentinel:// URL, redis-cli's flags and the password sources.
 */
export async function applyConnectionOptions(program: Command, cmd: Command, ctx: RunContext): Promise<void> {
  copyProgramValues(program, cmd);
  if (!connecting.has(cmd)) return;
  checkUrlWithCluster(cmd);
  // What the host put on the line (the REPL's target) it adds again: a hint need not repeat it.
  const fromHost = new Set(cmd.options.filter((o) => ctx.hostOptions?.some((f) => f === o.long || f === o.short)).map((o) => o.attributeName()));
  const typed = OPTION_NAMES.filter((n) => given(cmd, n) && !fromHost.has(n));
  const sandbox = await applySandboxOption(cmd, ctx);
  await applyTarget(cmd, ctx);
  await applyRedisCliFlags(cmd, ctx);
  replays.set(cmd, replay(cmd, typed, sandbox, fromHost));
}

const replays = new WeakMap<Command, readonly string[]>();

/**
 * The connection options that reach the same server again, without a password (`--askpass`
 * stands for one typed on the line): hints such as "release it with: ..." must be commands that work.
 */
export function replayArgs(cmd: Command): readonly string[] {
  return replays.get(cmd) ?? [];
}

function replay(cmd: Command, typed: readonly string[], sandbox: string | undefined, fromHost: ReadonlySet<string>): string[] {
  const flags = cmd.opts() as ConnectionFlags;
  if (sandbox !== undefined) return ['--sandbox', sandbox];
  if (typed.includes('target')) return ['--target', flags.target!];
  const where = ['url', 'host', 'port', 'user', 'db', 'tls', 'sentinel', 'cluster'].some((n) => typed.includes(n));
  const args: string[] = [];
  if (where && flags.url !== undefined) args.push('-u', stripPassword(flags.url));
  if (where && flags.sentinel !== undefined) args.push('--sentinel', flags.sentinel, '--master-name', flags.masterName ?? '');
  if (where && flags.cluster !== undefined) args.push('--cluster', flags.cluster);
  for (const [name, flag] of [['cacert', '--cacert'], ['cert', '--cert'], ['key', '--key']] as const) {
    if (flags[name] !== undefined && !fromHost.has(name)) args.push(flag, flags[name]);
  }
  if (flags.insecure && !fromHost.has('insecure')) args.push('--insecure');
  const typedPassword = typed.includes('pass') || typed.includes('askpass') || (typed.includes('url') && urlHasPassword(flags.url ?? ''));
  if (typedPassword) args.push('--askpass');
  return args;
}

/** The URL without its password (the user name stays: it says which ACL user). */
export function stripPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}
