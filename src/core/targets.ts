// Named targets (`target add prod rediss://...`): the pure part. A stored target is the URL
// (with its password only if the user asked to save it), the Sentinel or Cluster seeds, and how
// the password is obtained at use. No file or terminal I/O here: see state/targets.ts and
// commands/target-use.ts.

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

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new UsageError('invalid Redis URL: expected redis://[user:password@]host:port[/db] or rediss://...');
  }
}

/** Splits a URL into its password-free form and the password it carried (decoded), if any. */
export function splitPassword(url: string): { readonly url: string; readonly password?: string | undefined } {
  const parsed = parse(url);
  if (parsed.password === '') return { url: parsed.href };
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { url: parsed.href, password };
}

/** The URL with this password in it (encoded, so `@`, `:` and `%` in passwords survive). */
export function withPassword(url: string, password: string): string {
  const parsed = parse(url);
  parsed.password = encodeURIComponent(password);
  return parsed.href;
}

/** The URL for display: a password, if present, becomes `***`. */
export function maskUrl(url: string): string {
  const parsed = parse(url);
  if (parsed.password === '') return parsed.href;
  parsed.password = '***';
  return parsed.href;
}

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
