import { PermissionError } from '../core/errors.js';
import type { RedisClient } from './connection.js';

// A server's refusal of a command, as one line naming the ACL rule that would allow it. Errors are
// told apart by their prefix only (NOPERM, the script's ACL refusal, ERR unknown command): the
// rest of Redis's text changes between versions. Redis 7.0 does not name the user in NOPERM and
// ACL WHOAMI needs a rule of its own, so the user is the one we authenticated as ("default"
// when the URL names none).

// NOPERM this user has no permissions to run the 'client|list' command
const NOPERM_COMMAND = /^NOPERM[^']*'([^']+)' command/;
// NOPERM this user has no permissions to access one of the keys (or channels) used as arguments
const NOPERM_KEYS = /^NOPERM[^']*\bkeys\b/;
const NOPERM_CHANNELS = /^NOPERM[^']*\bchannels\b/;
/** What a script gets when its user may not run a command the script calls (Redis 7). */
const SCRIPT_REFUSED = /^(ERR )?The user executing the script can't run/;
// ERR unknown command 'CONFIG', with args beginning with: ...  (renamed or disabled: rename-command)
const UNKNOWN_COMMAND = /^ERR unknown command '([^']+)'/;

/** The user a connection authenticated as, from ioredis's own options. */
export function aclUserOf(client: RedisClient): string {
  const options = (client as { options?: { username?: string; redisOptions?: { username?: string } } }).options;
  return options?.username || options?.redisOptions?.username || 'default';
}

/** True for a refusal of the scripting commands or of a command a script called: reads can go on without scripts. */
export function isScriptRefusal(err: unknown): boolean {
  // A Cluster node's own client does not name its errors: its raw reply is read the same way.
  const refusal = err instanceof PermissionError ? err : err instanceof Error ? permissionError(err.message, '', 'default') : undefined;
  return refusal !== undefined && /^(eval|evalsha|eval_ro|evalsha_ro|script)\b/.test(refusal.command);
}

/**
 * A PermissionError when `message` is a server's refusal (NOPERM, a script's ACL refusal, a
 * renamed or disabled command), else undefined. `label` names the server, `user` the ACL user.
 */
export function permissionError(message: string, label: string, user: string): PermissionError | undefined {
  const grant = (rule: string): string => `grant it with ACL SETUSER ${user} ${rule}`;
  const denied = NOPERM_COMMAND.exec(message)?.[1]?.toLowerCase();
  if (denied !== undefined) {
    return new PermissionError(`the Redis user ${user} at ${label} may not run ${denied.toUpperCase()}: ${grant(`+${denied}`)}`, denied, false);
  }
  if (NOPERM_KEYS.test(message)) return new PermissionError(`the Redis user ${user} at ${label} may not read these keys: ${grant('~*')} (or a pattern that covers them)`, 'keys', false);
  if (NOPERM_CHANNELS.test(message)) return new PermissionError(`the Redis user ${user} at ${label} may not use these channels: ${grant('&*')}`, 'channels', false);
  if (SCRIPT_REFUSED.test(message)) {
    return new PermissionError(`the Redis user ${user} at ${label} may not run a command the Lua script calls: ${grant('+@read +time +pubsub|numsub')}`, 'script', false);
  }
  const unknown = UNKNOWN_COMMAND.exec(message)?.[1]?.toLowerCase();
  if (unknown !== undefined) {
    return new PermissionError(`Redis at ${label} has no ${unknown.toUpperCase()} command (renamed or disabled, as managed services do)`, unknown, true);
  }
  return undefined;
}
