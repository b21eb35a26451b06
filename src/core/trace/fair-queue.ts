// A Redisson fair lock's bookkeeping as a script changes it: the waiter queue (RPUSH joins,
// LPOP / LREM leaves) and the timeout set that holds each waiter's deadline.

import type { EffectContext, ScriptRun } from './effect-context.js';
import { firstScore } from './script-facts.js';

/** Decodes one command a script ran on a fair lock's queue or timeout set. */
export function queueCommand(ctx: EffectContext, run: ScriptRun, lock: string, role: 'queue' | 'timeouts', cmd: string, args: readonly string[]): void {
  const s = ctx.model.state(lock, 'redisson');
  const leave = (owner: string | undefined, detail?: string) => {
    if (owner === undefined) return;
    const at = s.queue.indexOf(owner);
    if (at >= 0) s.queue.splice(at, 1);
    s.deadlines.delete(owner);
    ctx.emit({ kind: 'queue-leave', lock, owner, library: 'redisson', ...(detail ? { detail } : {}) });
  };
  if (role === 'timeouts') {
    // ZADD timeouts <deadline> <owner>: the waiter's deadline (set just before it joins the queue).
    if (cmd === 'zadd') s.deadlines.set(args[firstScore(args) + 1] ?? '', Number(args[firstScore(args)]));
    return;
  }
  if (cmd === 'rpush') {
    for (const owner of args.slice(2)) {
      s.queue.push(owner);
      const deadline = s.deadlines.get(owner);
      ctx.emit({ kind: 'queue-join', lock, owner, library: 'redisson', ...(deadline !== undefined ? { deadline } : {}) });
    }
  } else if (cmd === 'lpop') {
    // The purge drops a head whose deadline passed; an acquire pops itself.
    const head = s.queue[0];
    const deadline = head === undefined ? undefined : s.deadlines.get(head);
    leave(head, deadline !== undefined && deadline <= run.t ? 'deadline passed' : undefined);
  } else if (cmd === 'lrem') leave(args[3]);
}
