// `notify-keyspace-events` as `trace --source keyspace` needs it: K (the __keyspace@<db>__ channels,
// which carry the key in the channel and the event as the message), g (DEL, EXPIRE, PERSIST,
// RENAME), $ (SET), h (HINCRBY, HSET, HDEL) and x (the server's own expiries). `A` stands for
// g$lshzxet(d), which covers all but K.

import { redisCli } from '../doctor-fix.js';

export const NEEDED_NOTIFY_FLAGS = ['K', 'g', '$', 'h', 'x'] as const;

/** The needed flags `value` (as CONFIG GET prints it) lacks. */
export function missingNotifyFlags(value: string): string[] {
  return NEEDED_NOTIFY_FLAGS.filter((f) => !value.includes(f) && !(f !== 'K' && value.includes('A')));
}

/** `value` with the missing flags added (what `--enable-notifications` sets). */
export function withNotifyFlags(value: string): string {
  return value + missingNotifyFlags(value).join('');
}

/** One line: what is missing on `node` and the two ways to fix it. */
export function missingFlagsMessage(node: string, value: string): string {
  const missing = missingNotifyFlags(value);
  return (
    `--source keyspace: notify-keyspace-events on ${node} is "${value}", without ${missing.join(' ')}: ` +
    `run CONFIG SET notify-keyspace-events "${withNotifyFlags(value)}" there, or add --enable-notifications ` +
    `(trace sets them and puts "${value}" back when it ends)`
  );
}

/** Where a printed command connects: the node, its TLS and user; a password is never printed. */
export interface NotifyNode {
  readonly host: string;
  readonly port: number;
  readonly tls?: boolean | undefined;
  readonly username?: string | undefined;
  readonly hasPassword: boolean;
}

/** The redis-cli line that puts `previous` back on `node`, for a person to paste if the trace cannot. */
export function restoreNotifyCommand(node: NotifyNode, previous: string): string {
  const connection = [
    '-h', node.host, '-p', String(node.port),
    ...(node.tls ? ['--tls'] : []),
    ...(node.username ? ['--user', node.username] : []),
    ...(node.hasPassword ? ['--askpass'] : []),
  ];
  return redisCli({ redisCli: connection, redlockCli: [] }, 'CONFIG', 'SET', 'notify-keyspace-events', previous);
}
