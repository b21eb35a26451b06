import { parseRedisUrl, describeTarget, parseHostList, parseSentinelUrl, type TargetSpec } from '../redis/target.js';
import type { SandboxHandle } from '../sandbox/index.js';
import { hasOption, parseLine, takesOption, type ParsedLine } from './command-tree.js';
import type { CommandNode } from '../core/completion.js';
import type { Placed } from '../core/repl/state.js';

/** Where the REPL's commands go unless they say otherwise: a URL, or an attached sandbox. */
export interface ReplTarget {
  /** What the prompt shows: `127.0.0.1:6379` or `sandbox:single`. */
  readonly label: string;
  /** The panel's connection. */
  readonly spec: TargetSpec;
  /** Connection options given to every command that takes them and has none of its own. */
  readonly args: readonly string[];
  /** A Redlock sandbox: lock commands without --kind become `--kind redlock --nodes ...`. */
  readonly redlockNodes?: string | undefined;
  /** The attached sandbox's name. */
  readonly sandbox?: string | undefined;
}

/** The names the owner memory gives locks taken on this target. */
export function ownerMemoryNames(target: ReplTarget): string[] {
  const names = [describeTarget(target.spec)];
  if (target.redlockNodes) names.push(`redlock ${target.redlockNodes.split(',').map((url) => describeTarget({ url })).join(',')}`);
  return names;
}

/** The target with the owner memory's names for it, as the session's state keeps it. */
export const placed = (target: ReplTarget): Placed<ReplTarget> => ({ target, names: ownerMemoryNames(target) });

/** A plain URL target (`connect <url>`); a bare host:port gets redis:// in front. */
export function urlTarget(text: string): ReplTarget {
  const sentinel = parseSentinelUrl(text); // the URL `sandbox up` prints for a Sentinel sandbox
  if (sentinel) return { label: describeTarget(sentinel), spec: sentinel, args: ['--url', text] };
  const url = text.includes('://') ? text : `redis://${text}`;
  parseRedisUrl(url); // throws a usage error naming what is wrong
  const spec = { url };
  return { label: describeTarget(spec), spec, args: ['--url', url] };
}

/** The target of an attached sandbox: its primary, its sentinels, its cluster seeds or its Redlock nodes. */
export function sandboxTarget(handle: SandboxHandle): ReplTarget {
  const label = `sandbox:${handle.name === 'default' ? handle.topology : handle.name}`;
  const { urls } = handle;
  const base = { label, sandbox: handle.name };
  if (urls.sentinel) {
    const hosts = urls.sentinel.hosts.join(',');
    const spec = { url: 'redis://127.0.0.1:6379', sentinels: parseHostList(hosts, '--sentinel'), masterName: urls.sentinel.masterName };
    return { ...base, spec, args: ['--sentinel', hosts, '--master-name', urls.sentinel.masterName] };
  }
  if (urls.cluster) {
    const seeds = urls.cluster.seeds.join(',');
    return { ...base, spec: { url: 'redis://127.0.0.1:6379', clusterNodes: parseHostList(seeds, '--cluster') }, args: ['--cluster', seeds] };
  }
  const nodeUrls = Object.values(urls.nodes);
  const primary = urls.primary ?? nodeUrls[0] ?? 'redis://127.0.0.1:6379';
  // A Redlock sandbox has no primary: the panel reads the first node, lock commands use them all.
  const redlockNodes = handle.topology === 'redlock' ? nodeUrls.join(',') : undefined;
  return { ...base, spec: { url: primary }, args: ['--url', primary], redlockNodes };
}

const CONNECTION_FLAGS = ['--url', '--sentinel', '--cluster', '--target', '--sandbox', '--host', '--port'];

/**
 * argv with the target's connection options inserted right after the command path (so they
 * never land after `--`, among a held command's own arguments), unless the command takes no
 * connection options or was given its own.
 */
export function withTarget(tree: CommandNode, argv: readonly string[], target: ReplTarget): string[] {
  return targeted(tree, argv, target).argv;
}

/** withTarget's argv, and the options it added (for the command to leave out of its hints: the REPL adds them again). */
export function targeted(tree: CommandNode, argv: readonly string[], target: ReplTarget): { argv: string[]; hostOptions: string[] } {
  const line = parseLine(tree, argv);
  if (!takesOption(line, '--url')) return { argv: [...argv], hostOptions: [] };
  const extra: string[] = [];
  if (!CONNECTION_FLAGS.some((f) => hasOption(line, f))) extra.push(...target.args);
  // Lock commands (they take --owner) become Redlock; inspect and ls keep reading the panel's node.
  if (target.redlockNodes !== undefined && takesOption(line, '--owner') && takesOption(line, '--nodes') && !hasOption(line, '--nodes')) {
    const kind = kindGiven(line, argv);
    if (kind === undefined) extra.push('--kind', 'redlock', '--nodes', target.redlockNodes);
    else if (kind === 'redlock') extra.push('--nodes', target.redlockNodes);
  }
  return { argv: [...argv.slice(0, line.afterPath), ...extra, ...argv.slice(line.afterPath)], hostOptions: extra.filter((w) => w.startsWith('-')) };
}

/** The --kind value given, if any (`--kind x`, `--kind=x`, `-k x`). */
function kindGiven(line: ParsedLine, argv: readonly string[]): string | undefined {
  if (!hasOption(line, '--kind')) return undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('--kind=')) return word.slice('--kind='.length);
    if (word === '--kind' || word === '-k') return argv[i + 1];
  }
  return undefined;
}

/** The REPL's first target from its own connection options (`repl --url ...`, `--sentinel`, `--cluster`), else REDIS_URL or the default. */
export function flagsTarget(
  spec: TargetSpec,
  flags: { readonly sentinel?: string; readonly masterName?: string; readonly cluster?: string; readonly target?: string },
): ReplTarget {
  const target = connectionTarget(spec, flags);
  // A saved target (--target or `target use`) is named in the prompt: `A@target:prod>`.
  return flags.target !== undefined ? { ...target, label: `target:${flags.target}` } : target;
}

function connectionTarget(spec: TargetSpec, flags: { readonly sentinel?: string; readonly masterName?: string; readonly cluster?: string }): ReplTarget {
  const label = describeTarget(spec);
  if (flags.sentinel !== undefined) {
    // The URL carries the master's credentials and db; the sentinels say where it is.
    const args = ['--sentinel', flags.sentinel, ...(flags.masterName ? ['--master-name', flags.masterName] : []), '--url', spec.url];
    return { label, spec, args: [...args, ...tlsFileArgs(spec)] };
  }
  if (flags.cluster !== undefined) return { label, spec, args: ['--cluster', flags.cluster, ...clusterCredentialArgs(spec), ...tlsFileArgs(spec)] };
  return { ...urlTarget(spec.url), spec, args: ['--url', spec.url, ...tlsFileArgs(spec)] };
}

/** A Cluster takes no --url: its user, password and TLS go as redis-cli's flags (in-process argv, never a process's). */
function clusterCredentialArgs(spec: TargetSpec): string[] {
  const url = parseRedisUrl(spec.url);
  return [...(url.username ? ['--user', url.username] : []), ...(url.password ? ['--pass', url.password] : []), ...(url.tls ? ['--tls'] : [])];
}

/** --cacert/--cert/--key/--insecure the REPL was started with, for every command it runs. */
function tlsFileArgs(spec: TargetSpec): string[] {
  const t = spec.tls;
  if (!t) return [];
  return [
    ...(t.ca !== undefined ? ['--cacert', t.ca] : []),
    ...(t.cert !== undefined ? ['--cert', t.cert] : []),
    ...(t.key !== undefined ? ['--key', t.key] : []),
    ...(t.insecure ? ['--insecure'] : []),
  ];
}
