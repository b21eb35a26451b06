// redis-cli's connection flags (-h -p -a --user -n --tls) applied on top of a URL: the URL
// (from -u, a saved target, REDIS_URL or the default) says where, each flag replaces one part.
// Pure: commands/connection-flags.ts gathers the flags, the environment and the prompt.

import { UsageError } from './errors.js';
import { withPassword } from './targets.js';

export interface UrlOverrides {
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  readonly db?: number | undefined;
  /** --tls: rediss:// whatever the URL said. */
  readonly tls?: boolean | undefined;
}

/** A TCP port from -p: 1..65535. */
export function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new UsageError(`invalid port "${text}": expected a number from 1 to 65535, e.g. -p 6380`);
  return port;
}

/** A database number from -n. */
export function parseDb(text: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new UsageError(`invalid database "${text}": expected a number, e.g. -n 2`);
  return Number(text);
}

/** The URL with each given part replaced; parts not given stay as the URL had them. */
export function overrideUrl(url: string, o: UrlOverrides): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('invalid Redis URL: expected redis://[user:password@]host:port[/db] or rediss://...');
  }
  if (o.tls) parsed.protocol = 'rediss:';
  if (o.host !== undefined) {
    if (o.host === '' || /[\s/@?#]/.test(o.host)) throw new UsageError(`invalid host "${o.host}": expected a name or address, e.g. -h 10.0.0.5`);
    parsed.hostname = o.host.includes(':') && !o.host.startsWith('[') ? `[${o.host}]` : o.host;
  }
  if (o.port !== undefined) parsed.port = String(o.port);
  if (o.user !== undefined) parsed.username = encodeURIComponent(o.user);
  if (o.db !== undefined) parsed.pathname = `/${o.db}`;
  return o.password !== undefined ? withPassword(parsed.href, o.password) : parsed.href;
}

/** Whether the URL carries a password already (then REDISCLI_AUTH is not needed). */
export function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}
