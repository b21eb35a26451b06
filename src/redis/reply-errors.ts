import { CliError, UnreachableError, UsageError } from '../core/errors.js';
import { formatDuration } from '../core/duration.js';
import type { RedisClient } from './connection.js';
import { aclUserOf, permissionError } from './permissions.js';

/**
 * Redis's own error replies and ioredis's timeouts as one line that says what to do, with the
 * exit code docs/safety.md documents. Anything not listed stays as it was (the script registry turns
 * its REDLOCK_* guard replies into messages of its own; NOSCRIPT must reach ioredis unchanged).
 */
// ioredis's message when commandTimeout passes without a reply.
const TIMED_OUT = 'Command timed out';

export function describeReplyError(err: unknown, label: string, replyTimeoutMs: number | undefined, user = 'default'): unknown {
  if (!(err instanceof Error) || err instanceof CliError) return err;
  const message = err.message;
  if (message === TIMED_OUT) {
    const within = replyTimeoutMs === undefined ? '' : ` within ${formatDuration(replyTimeoutMs)}`;
    return new UnreachableError(
      `Redis at ${label} did not answer${within} (is it paused or overloaded? raise --timeout if it is only slow)`,
    );
  }
  if (/^Connection is closed|Stream isn't writeable|^Reached the max retries|Command aborted due to connection close/.test(message)) {
    return new UnreachableError(`lost the connection to Redis at ${label}`);
  }
  const refused = permissionError(message, label, user);
  if (refused) return refused;
  if (/^CLUSTERDOWN/.test(message)) {
    return new UnreachableError(`Redis Cluster at ${label} is down (${firstLine(message)}): try again once every slot is served`);
  }
  if (/^(MOVED|ASK) /.test(message) && !isClusterLabel(label)) {
    return new UsageError(`${label} is a Redis Cluster node: connect with --cluster ${label.replace(/\/\d+$/, '')} instead of --url`);
  }
  if (/^Too many Cluster redirections/.test(message)) {
    // A multi-key script on a slot that is moving: neither node holds every key, so both answer
    // TRYAGAIN (or send us to each other) until the move is finished.
    return new UnreachableError(
      `Redis Cluster at ${label.replace(/^cluster /, '')} kept redirecting this command (${firstLine(message.replace(/^.*Last error: (ReplyError: )?/, ''))}): a slot it touches is moving between nodes; try again once the move is finished`,
    );
  }
  if (/^READONLY/.test(message)) {
    return new UsageError(`${label} is a read-only replica: point --url at the primary (or use --sentinel)`);
  }
  if (/^(LOADING|MASTERDOWN|BUSY |TRYAGAIN)/.test(message)) {
    return new UnreachableError(`Redis at ${label} cannot serve this now (${firstLine(message)}): try again shortly`);
  }
  if (/^OOM /.test(message)) {
    return new UnreachableError(`Redis at ${label} is out of memory (maxmemory reached): nothing was written`);
  }
  if (/hash value is not an integer|value is not an integer or out of range/.test(message)) {
    return new UsageError(
      `a key this command touches holds data that is not a lock of this kind (${firstLine(message)}): look at it with \`redlock-cli inspect <key>\``,
    );
  }
  return err;
}

const firstLine = (text: string): string => text.split('\n')[0]!.slice(0, 160);

// describeTarget names a Cluster `cluster <seeds>`.
const isClusterLabel = (label: string): boolean => label.startsWith('cluster ');

/**
 * On a Cluster, ioredis follows MOVED and ASK itself, and a pipeline decides from the raw reply
 * whether to resend (snapshot reads then retry what it left): those replies must reach it as
 * Redis sent them. Exhausted redirections still come through here.
 */
const leftToCluster = (label: string, err: unknown): boolean =>
  isClusterLabel(label) && err instanceof Error && /^(MOVED|ASK|TRYAGAIN) /.test(err.message);

interface CommandLike {
  reject: (err: unknown) => void;
}

/**
 * Every command sent on `client` (pipelines and scripts included: they all pass sendCommand)
 * fails with describeReplyError's message, which names the server. ioredis has no hook for this,
 * and its errors carry no address, so a command's failure could not say which node it came from.
 */
export function nameReplyErrors(client: RedisClient, label: string, replyTimeoutMs: number | undefined, onTimeout: () => void): void {
  const target = client as unknown as { sendCommand: (command: CommandLike, ...rest: unknown[]) => unknown };
  const send = target.sendCommand.bind(client);
  const user = aclUserOf(client);
  target.sendCommand = (command, ...rest) => {
    const reject = command.reject.bind(command);
    command.reject = (err) => {
      if (err instanceof Error && err.message === TIMED_OUT) onTimeout();
      reject(leftToCluster(label, err) ? err : describeReplyError(err, label, replyTimeoutMs, user));
    };
    return send(command, ...rest);
  };
}
