// redis-cli's connection flags (-h -p -a --user -n --tls) applied on top of an endpoint: the
// endpoint (from -u, a saved target, REDIS_URL, the REPL's target or the default) says where,
// each flag replaces one part. Pure: commands/resolve-endpoint.ts gathers the flags, the
// environment and the prompt.

import type { Endpoint, PasswordSource } from './endpoint.js';
import { UsageError } from './errors.js';

export interface UrlOverrides {
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly user?: string | undefined;
  readonly password?: { readonly value: string; readonly from: PasswordSource } | undefined;
  readonly db?: number | undefined;
  /** --tls: TLS whatever the URL said. */
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

/** The endpoint with each given part replaced; parts not given stay as they were. */
export function overrideEndpoint(ep: Endpoint, o: UrlOverrides): Endpoint {
  if (o.host !== undefined && (o.host === '' || /[\s/@?#]/.test(o.host))) {
    throw new UsageError(`invalid host "${o.host}": expected a name or address, e.g. -h 10.0.0.5`);
  }
  return {
    ...ep,
    ...(o.tls ? { tls: true } : {}),
    ...(o.host !== undefined ? { host: o.host.replace(/^\[(.*)\]$/, '$1') } : {}),
    ...(o.port !== undefined ? { port: o.port } : {}),
    ...(o.user !== undefined ? { username: o.user } : {}),
    ...(o.db !== undefined ? { db: o.db } : {}),
    ...(o.password !== undefined ? { password: o.password.value, passwordFrom: o.password.from } : {}),
  };
}
