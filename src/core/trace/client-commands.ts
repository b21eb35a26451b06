// Commands a client sends outside a script: a token lock's SET NX PX (redsync, redis-py,
// redis-semaphore's mutex), a plain PEXPIRE renewal, the conditional writes (SET IFEQ, DELIFEQ,
// DELEX: conditional-writes.ts), and everything that removes or changes a lock without its
// protocol (DEL, UNLINK, FLUSHALL, RENAME, ...), which is shown, never dropped.

import type { TraceClient } from './events.js';
import { isLockKey } from './keys.js';
import type { MonitorLine } from './monitor-line.js';
import type { EffectContext } from './effect-context.js';
import { conditionalDelete, conditionalSet, deleteLock } from './conditional-writes.js';
import { parseSetOptions, setLease } from './set-options.js';
import { resolveSet, sentPlainly } from './token-set.js';

// Commands that only read: seen on a lock key they are the lock's own business (a library's
// check, `inspect`), not something to report.
const READS = new Set([
  'get', 'mget', 'exists', 'pttl', 'ttl', 'type', 'hget', 'hgetall', 'hexists', 'hlen', 'hkeys', 'hvals', 'hmget', 'hscan',
  'lindex', 'lrange', 'llen', 'zscore', 'zrange', 'zcard', 'zrangebyscore', 'zrank', 'strlen', 'dump', 'object', 'memory',
  'scan', 'keys', 'pexpiretime', 'expiretime', 'watch', 'unwatch', 'debug', 'eval_ro', 'evalsha_ro', 'sscan', 'zscan',
]);

const EXPIRES = new Set(['expire', 'pexpire', 'expireat', 'pexpireat']);

/** Decodes one client command (not a script, not CLIENT SETNAME); `cmd` is its name in lower case. */
export function applyCommand(ctx: EffectContext, line: MonitorLine, client: TraceClient, cmd = line.args[0]!.toLowerCase()): void {
  const key = line.args[1];
  const { model } = ctx;
  if (cmd === 'flushall' || cmd === 'flushdb') {
    for (const s of model.held()) deleteLock(ctx, s, line);
    return;
  }
  if (key === undefined || READS.has(cmd)) return;
  const lockKey = ctx.wants(key) && isLockKey(key);
  if ((cmd === 'delifeq' || cmd === 'delex') && lockKey) return conditionalDelete(ctx, line);
  if ((cmd === 'set' || cmd === 'setnx') && lockKey) {
    const opts = cmd === 'setnx' ? { nx: true, xx: false, keepTtl: false } : parseSetOptions(line.args, 3);
    if (opts.condition) return conditionalSet(ctx, line, { ...opts, condition: opts.condition }, client);
    // A SET without NX on a key never seen as a lock is application data. Without a TTL it stays
    // forever: remembered, so a lock asking for that key later is known refused, and says why.
    if (!opts.nx && !model.has(key)) return setLease(opts, line.t) === undefined && !opts.keepTtl ? model.noteData(key) : undefined;
    const s = model.state(key, 'token');
    return resolveSet(ctx, s, opts, sentPlainly(line.args[2] ?? ''), line.t, client);
  }
  if (cmd === 'del' || cmd === 'unlink') {
    for (const k of line.args.slice(1)) {
      model.forgetData(k);
      deleteLock(ctx, model.get(k), line);
    }
    return;
  }
  // Data given a TTL goes away by itself: no longer a key that keeps a lock out forever.
  if (EXPIRES.has(cmd)) model.forgetData(key);
  const s = model.get(key);
  if (!s) return;
  if (cmd === 'zrem' && s.library === 'semaphore') {
    // redis-semaphore releases a permit with a plain ZREM of its id.
    for (const owner of line.args.slice(2)) {
      if (!s.holders.delete(owner)) continue;
      ctx.emit({ kind: 'released', lock: key, owner, library: 'semaphore', shared: true, count: 0 });
    }
    return;
  }
  if ((cmd === 'pexpire' || cmd === 'expire' || cmd === 'persist') && s.holders.size > 0) {
    const leaseMs = cmd === 'persist' ? undefined : Number(line.args[2]) * (cmd === 'expire' ? 1000 : 1);
    model.setExpiry(s, line.t, leaseMs);
    const owner = [...s.holders.keys()][0]!;
    ctx.emit({ kind: 'renewed', lock: key, owner, library: s.library, ...(leaseMs !== undefined ? { leaseMs } : {}), command: line.args });
    return;
  }
  ctx.emit({ kind: 'raw', lock: key, library: s.library, command: line.args });
}
