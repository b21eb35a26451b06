// Named targets (`target add prod rediss://...`): the pure part. A stored target is the URL
// (with its password only if the user asked to save it), the Sentinel or Cluster seeds, and how
// the password is obtained at use. No file or terminal I/O here: see state/targets.ts and
// commands/target-use.ts.

import { endpointUrl, formatHostPort, parseEndpointUrl, parseHostList, type Endpoint, type TlsFiles } from './endpoint.js';
import { UsageError } from './errors.js';

/** `saved`: the URL holds it (stored in plain text on request); `ask`: env var or prompt at use; `none`. */
export type TargetAuth = 'saved' | 'ask' | 'none';

export interface StoredTarget {
  /** redis:// or rediss:// URL; carries a password only when auth is `saved`. */
  readonly url: string;
  /** `host:port,...` seeds, normalised. */
  readonly sentinel?: string | undefined;
  readonly masterName?: string | undefined;
  readonly cluster?: string | undefined;
  /** --cacert/--cert/--key/--insecure given to `target add`. */
  readonly tls?: TlsFiles | undefined;
  readonly auth: TargetAuth;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Names must survive as env var suffixes and shell words: letters, digits, `-` and `_`. */
export function checkTargetName(name: string): string {
  if (!NAME.test(name)) {
    throw new UsageError(`invalid target name "${name}": use letters, digits, - and _ (at most 64, not starting with - or _)`);
  }
  return name;
}

/** The env var that holds a target's password: REDLOCK_PASSWORD_<NAME>, `-` as `_`. */
export function targetPasswordEnv(name: string): string {
  return `REDLOCK_PASSWORD_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** A saved target as the endpoint it names (its password, if saved, from its URL; TLS files as saved). */
export function storedEndpoint(target: StoredTarget): Endpoint {
  const ep = parseEndpointUrl(target.url);
  return {
    ...ep,
    ...(target.sentinel ? { sentinels: parseHostList(target.sentinel, '--sentinel'), masterName: target.masterName } : {}),
    ...(target.cluster ? { clusterNodes: parseHostList(target.cluster, '--cluster') } : {}),
    ...(target.tls ? { tlsFiles: target.tls } : {}),
  };
}

/** What `target add` saves for an endpoint: its URL (the password only when asked), its seeds, its TLS files. */
export function storedTarget(ep: Endpoint, savePassword: boolean): StoredTarget {
  const hasPassword = ep.password !== undefined;
  const url = endpointUrl({ ...ep, sentinels: undefined }, savePassword ? 'keep' : 'drop');
  return {
    url,
    ...(ep.sentinels ? { sentinel: ep.sentinels.map(formatHostPort).join(','), masterName: ep.masterName } : {}),
    ...(ep.clusterNodes ? { cluster: ep.clusterNodes.map(formatHostPort).join(',') } : {}),
    ...(ep.tlsFiles ? { tls: ep.tlsFiles } : {}),
    auth: !hasPassword ? 'none' : savePassword ? 'saved' : 'ask',
  };
}

/** A URL for display: a password, if present, becomes `***`. */
export const maskUrl = (url: string): string => endpointUrl(parseEndpointUrl(url), 'mask');

/** One line on where a target's password comes from, for `target list` / `show`. */
export function describeAuth(name: string, auth: TargetAuth): string {
  if (auth === 'saved') return 'saved in the targets file';
  if (auth === 'none') return 'none';
  return `${targetPasswordEnv(name)} or REDISCLI_AUTH, else asked on the terminal`;
}

/** `sentinel a:1,b:2 master m`, `cluster a:1,b:2` or `standalone`. */
export function describeTopology(target: StoredTarget): string {
  if (target.cluster) return `cluster ${target.cluster}`;
  if (target.sentinel) return `sentinel ${target.sentinel} master ${target.masterName ?? '?'}`;
  return 'standalone';
}
