// The connections a server has, as CLIENT LIST prints them: one line per connection of
// space-separated field=value pairs. Only the fields `who` shows or decides on are kept; a field an
// older server does not print (lib-name and lib-ver came with Redis 7.2) is left out, never guessed.

/** One connection on the server. */
export interface ServerConnection {
  readonly id: string;
  /** `127.0.0.1:53210`, `unix:/path`: what MONITOR lines and trace events name a client by. */
  readonly addr: string;
  /** CLIENT SETNAME, when one was set. */
  readonly name?: string | undefined;
  /** CLIENT SETINFO lib-name / lib-ver (Redis 7.2+), when the client library sent them. */
  readonly libName?: string | undefined;
  readonly libVer?: string | undefined;
  /** How long the connection has been open, and since its last command (CLIENT LIST's seconds, in ms). */
  readonly ageMs: number;
  readonly idleMs: number;
  /** Channels and patterns it is subscribed to (plain and sharded channels together). */
  readonly subscriptions: number;
  /** The last command it ran (`subscribe`, `evalsha`, `monitor`). */
  readonly cmd?: string | undefined;
}

function fields(line: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of line.trim().split(' ')) {
    const at = pair.indexOf('=');
    if (at > 0) out.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return out;
}

const seconds = (text: string | undefined): number => (text !== undefined && /^\d+$/.test(text) ? Number(text) * 1000 : 0);
const count = (text: string | undefined): number => (text !== undefined && /^\d+$/.test(text) ? Number(text) : 0);
const present = (text: string | undefined): string | undefined => (text === undefined || text === '' ? undefined : text);

/** Parses CLIENT LIST's reply; lines without an id and an address are skipped. */
export function parseClientList(text: string): ServerConnection[] {
  const out: ServerConnection[] = [];
  for (const line of text.split('\n')) {
    const f = fields(line);
    const id = f.get('id');
    const addr = f.get('addr');
    if (id === undefined || addr === undefined) continue;
    out.push({
      id,
      addr,
      name: present(f.get('name')),
      libName: present(f.get('lib-name')),
      libVer: present(f.get('lib-ver')),
      ageMs: seconds(f.get('age')),
      idleMs: seconds(f.get('idle')),
      subscriptions: count(f.get('sub')) + count(f.get('psub')) + count(f.get('ssub')),
      cmd: present(f.get('cmd')),
    });
  }
  return out;
}
