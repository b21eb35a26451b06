import { DEFAULT_REPLY_TIMEOUT_MS, DEFAULT_URL, parseEndpointList, parseEndpointUrl, parseHostList, type Endpoint, type TlsFiles } from '../core/endpoint.js';
import { parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { overrideEndpoint, parseDb, parsePort, type UrlOverrides } from '../core/url-overrides.js';
import type { ConnectionFlags } from './connection-flags.js';
import type { RunContext } from './context.js';

// The one resolver: the connection flags of one command line, the environment (REDIS_URL,
// REDISCLI_AUTH), a saved target (--target or `target use`), --sandbox and the host's target (the
// REPL's) become one Endpoint, once, before the action runs. Nothing is written back into
// commander's options: the action asks for the result (options.ts: targetSpec, redlockNodesOf).

/** What a command line resolved to. */
export interface ResolvedConnection {
  readonly endpoint: Endpoint;
  /** Redlock's independent primaries: --nodes, a Redlock sandbox's or the REPL's, credentials given once applied. */
  readonly nodes?: readonly Endpoint[] | undefined;
  /** --kind left at its default means redlock (the line goes to a Redlock sandbox). */
  readonly redlockByDefault: boolean;
  /** The saved target it went to, when one was (the REPL names it in its prompt). */
  readonly targetName?: string | undefined;
  /** The sandbox it went to, when one was. */
  readonly sandbox?: string | undefined;
  /** Something besides REDIS_URL or the default named it: a flag, a target, a sandbox or the host. */
  readonly named: boolean;
  /** Nothing named a server: not the line, the host, a saved target nor REDIS_URL (race then starts a sandbox of its own). */
  readonly defaulted: boolean;
}

/** What the resolver needs to know about the command besides its values. */
export interface ResolveInput {
  readonly flags: ConnectionFlags;
  /** Whether each option was typed on this line (not a default). */
  readonly typed: (name: keyof ConnectionFlags) => boolean;
  /** --sandbox names a connection here (the REPL's own --sandbox attaches one instead). */
  readonly sandboxConnects: boolean;
  /** The command has --nodes (Redlock) / is a lock command (--owner): where a Redlock target's nodes apply. */
  readonly takesNodes: boolean;
  readonly locks: boolean;
  /** `target add`: the connection is saved, not used now; only what the line says counts. */
  readonly saving?: boolean | undefined;
  /** `target add <name> <url>`: the URL given as an argument. */
  readonly urlArgument?: string | undefined;
}

const nonEmpty = (text: string | undefined): string | undefined => (text === undefined || text.trim() === '' ? undefined : text);
const WHERE = ['url', 'sentinel', 'cluster', 'host', 'port', 'target', 'sandbox'] as const;

/** Resolves one command line's connection. */
export async function resolveConnection(input: ResolveInput, ctx: RunContext): Promise<ResolvedConnection> {
  const { flags, typed } = input;
  if (typed('url') && typed('cluster')) {
    throw new UsageError('use either --url (one server) or --cluster (its seed nodes), not both: a Cluster password goes in REDIS_URL');
  }
  const start = await startingPoint(input, ctx);
  if ((flags.host !== undefined || flags.port !== undefined) && (flags.sentinel !== undefined || flags.cluster !== undefined)) {
    throw new UsageError('-h/-p name one server; with --sentinel or --cluster the seed list says where: drop -h/-p');
  }
  if (flags.sentinel !== undefined && flags.cluster !== undefined) throw new UsageError('use either --sentinel or --cluster, not both');
  const seeded = withSeeds(start.endpoint, flags);
  const endpoint = overrideEndpoint(seeded, await redisCliOverrides(flags, seeded, ctx, start.sandbox !== undefined || input.saving === true));
  const tlsFiles = tlsFilesOf(flags, endpoint);
  const timeout = flags.timeout === undefined ? undefined : parseDuration(flags.timeout, '--timeout duration');
  const resolved: Endpoint = {
    ...endpoint,
    ...(tlsFiles ? { tlsFiles } : {}),
    replyTimeoutMs: timeout ?? endpoint.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS,
  };
  const nodes = nodesOf(input, start.nodes, resolved);
  const overridden = (['host', 'port', 'user', 'pass', 'askpass', 'db', 'tls'] as const).some((n) => flags[n] !== undefined);
  return {
    endpoint: resolved,
    nodes,
    redlockByDefault: start.nodes !== undefined && nodes !== undefined,
    targetName: start.targetName,
    sandbox: start.sandbox,
    named: start.named || overridden || resolved.passwordFrom === 'env',
    defaulted: start.defaulted === true && !overridden,
  };
}

interface StartingPoint {
  readonly endpoint: Endpoint;
  readonly nodes?: readonly Endpoint[] | undefined;
  readonly targetName?: string | undefined;
  readonly sandbox?: string | undefined;
  readonly named: boolean;
  /** The default URL, for want of anything else. */
  readonly defaulted?: boolean | undefined;
}

/** Where the line goes before redis-cli's flags change a part: its sandbox, target, URL, the host's target, REDIS_URL, the current target or the default. */
async function startingPoint(input: ResolveInput, ctx: RunContext): Promise<StartingPoint> {
  const { flags, typed } = input;
  if (input.saving) return savedStart(input);
  if (flags.sandbox !== undefined && input.sandboxConnects) return sandboxStart(input, ctx, flags.sandbox);
  if (flags.target !== undefined) {
    const given = (['url', 'sentinel', 'masterName', 'cluster'] as const).filter((n) => flags[n] !== undefined);
    if (given.length > 0) throw new UsageError(`--target ${flags.target} already says where to connect: drop ${given.map(flagName).join(' and ')}`);
    return { endpoint: await (await import('./target-use.js')).targetEndpoint(ctx, flags.target), targetName: flags.target, named: true };
  }
  if (flags.url !== undefined) return { endpoint: parseEndpointUrl(flags.url), named: true };
  const envUrl = nonEmpty(ctx.env.REDIS_URL);
  const saysWhere = WHERE.some((n) => typed(n));
  if (!saysWhere && ctx.target) {
    const { endpoint, redlockNodes, sandbox } = ctx.target;
    return { endpoint, nodes: input.locks ? redlockNodes : undefined, sandbox, named: true };
  }
  if (saysWhere || envUrl !== undefined) return { endpoint: parseEndpointUrl(envUrl ?? DEFAULT_URL), named: saysWhere };
  const { loadCurrentTarget } = await import('../state/targets.js');
  const current = loadCurrentTarget(ctx.env);
  if (current === undefined) return { endpoint: parseEndpointUrl(DEFAULT_URL), named: false, defaulted: true };
  return { endpoint: await (await import('./target-use.js')).targetEndpoint(ctx, current), targetName: current, named: true };
}

/** `target add`: the URL (argument or -u), or -h/-p/--sentinel/--cluster on the default; never the environment's. */
function savedStart({ flags, typed, urlArgument }: ResolveInput): StartingPoint {
  if (urlArgument !== undefined && flags.url !== undefined) throw new UsageError('the URL is given twice (argument and --url): keep one');
  const url = urlArgument ?? flags.url;
  if (url !== undefined) return { endpoint: parseEndpointUrl(url), named: true };
  if (!(['sentinel', 'cluster', 'host', 'port'] as const).some((n) => typed(n))) {
    throw new UsageError('where does the target connect? give a URL, or -h/-p, --sentinel or --cluster, e.g. target add prod rediss://10.0.0.5:6380');
  }
  return { endpoint: parseEndpointUrl(DEFAULT_URL), named: true };
}

const FLAG_NAMES: Partial<Record<keyof ConnectionFlags, string>> = {
  url: '--url',
  sentinel: '--sentinel',
  masterName: '--master-name',
  cluster: '--cluster',
  target: '--target',
  host: '--host',
  port: '--port',
};
const flagName = (name: keyof ConnectionFlags): string => FLAG_NAMES[name] ?? `--${name}`;

/** --sandbox [name]: the sandbox's own connection (its primary, sentinels, cluster seeds or Redlock nodes). */
async function sandboxStart(input: ResolveInput, ctx: RunContext, name: string | true): Promise<StartingPoint> {
  const clash = (['url', 'sentinel', 'cluster', 'target', 'host', 'port'] as const).filter((n) => input.typed(n));
  if (clash.length > 0) throw new UsageError(`--sandbox already says where to connect: drop ${clash.map(flagName).join(' and ')}`);
  const { loadSandbox } = await import('../sandbox/index.js');
  const sandbox = await loadSandbox(name === true ? undefined : name, { env: ctx.env, howToName: '--sandbox <name>' });
  const { urls } = sandbox;
  const nodeUrls = Object.values(urls.nodes);
  const primary = parseEndpointUrl(urls.primary ?? nodeUrls[0] ?? DEFAULT_URL);
  const endpoint: Endpoint = urls.sentinel
    ? { ...primary, sentinels: parseHostList(urls.sentinel.hosts.join(','), '--sentinel'), masterName: urls.sentinel.masterName }
    : urls.cluster
      ? { ...primary, clusterNodes: parseHostList(urls.cluster.seeds.join(','), '--cluster') }
      : primary;
  // Commands on a Redlock sandbox act on all its nodes unless told otherwise.
  const nodes = sandbox.topology === 'redlock' ? nodeUrls.map((u) => parseEndpointUrl(u)) : undefined;
  return { endpoint, nodes, sandbox: sandbox.name, named: true };
}

/** --sentinel/--master-name and --cluster: the seeds, with the credentials and db the endpoint carries. */
function withSeeds(ep: Endpoint, flags: ConnectionFlags): Endpoint {
  if (ep.sentinels && flags.sentinel !== undefined && flags.url !== undefined) {
    throw new UsageError('a redis-sentinel:// URL names its sentinels: drop --sentinel/--cluster');
  }
  if (flags.masterName !== undefined && flags.sentinel === undefined && !ep.sentinels) {
    throw new UsageError('--master-name goes with --sentinel <host:port,...>');
  }
  if (flags.sentinel !== undefined) {
    const { clusterNodes: _c, ...rest } = ep;
    return { ...rest, sentinels: parseHostList(flags.sentinel, '--sentinel'), masterName: flags.masterName ?? ep.masterName };
  }
  if (flags.cluster !== undefined) {
    const { sentinels: _s, masterName: _m, ...rest } = ep;
    return { ...rest, clusterNodes: parseHostList(flags.cluster, '--cluster') };
  }
  return flags.masterName !== undefined ? { ...ep, masterName: flags.masterName } : ep;
}

/** -h -p --user -n --tls and the password: --askpass, else -a/--pass, else REDISCLI_AUTH when nothing else gave one (not for a sandbox: it has none). */
async function redisCliOverrides(flags: ConnectionFlags, ep: Endpoint, ctx: RunContext, sandbox: boolean): Promise<UrlOverrides> {
  return {
    host: flags.host,
    port: flags.port !== undefined ? parsePort(flags.port) : undefined,
    user: flags.user,
    password: await passwordOf(flags, ep, ctx, sandbox),
    db: flags.db !== undefined ? parseDb(flags.db) : undefined,
    tls: flags.tls,
  };
}

async function passwordOf(flags: ConnectionFlags, ep: Endpoint, ctx: RunContext, sandbox: boolean): Promise<UrlOverrides['password']> {
  if (flags.askpass) {
    const { promptPassword, rawTerminal } = await import('./password-prompt.js');
    const terminal = rawTerminal(ctx);
    if (!terminal) throw new UsageError('--askpass needs a terminal to ask on: set REDISCLI_AUTH instead');
    return { value: await promptPassword(ctx, terminal, 'Please input password: '), from: 'prompt' };
  }
  if (flags.pass !== undefined) return { value: flags.pass, from: 'flag' };
  const fromEnv = ep.password !== undefined || sandbox ? undefined : nonEmpty(ctx.env.REDISCLI_AUTH);
  return fromEnv !== undefined ? { value: fromEnv, from: 'env' } : undefined;
}

/** --cacert/--cert/--key/--insecure, which only mean something over TLS; typed ones replace the target's. */
function tlsFilesOf(flags: ConnectionFlags, ep: Endpoint): TlsFiles | undefined {
  const typed: TlsFiles = { ca: flags.cacert, cert: flags.cert, key: flags.key, insecure: flags.insecure };
  if (Object.values(typed).every((v) => v === undefined)) return ep.tlsFiles;
  if (!ep.tls) throw new UsageError('--cacert, --cert, --key and --insecure go with TLS: add --tls or use rediss://');
  if ((typed.cert === undefined) !== (typed.key === undefined)) throw new UsageError('--cert and --key go together');
  return typed;
}

/** Redlock's nodes: --nodes as typed, else the sandbox's or host's; each gets the user, password and TLS files given once. */
function nodesOf(input: ResolveInput, fromTarget: readonly Endpoint[] | undefined, ep: Endpoint): readonly Endpoint[] | undefined {
  const typed = input.flags.nodes !== undefined ? parseEndpointList(input.flags.nodes) : undefined;
  const nodes = typed ?? (input.takesNodes ? fromTarget : undefined);
  if (!nodes) return undefined;
  // Credentials typed once (-a, --askpass, --user, REDISCLI_AUTH, a target's) need not be written into each URL.
  const shared = input.flags.user !== undefined || (ep.passwordFrom !== undefined && ep.passwordFrom !== 'url');
  return nodes.map((n) => ({
    ...n,
    ...(shared && n.password === undefined ? { username: n.username ?? ep.username, password: ep.password, passwordFrom: ep.passwordFrom } : {}),
    ...(n.tls && n.tlsFiles === undefined && ep.tlsFiles ? { tlsFiles: ep.tlsFiles } : {}),
    replyTimeoutMs: ep.replyTimeoutMs,
  }));
}
