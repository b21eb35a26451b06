// The two findings of a stale owner's window (checker.ts): it worked without its lock
// (`expired-while-held`, from the expiry to its last act as holder seen), and each other holder
// whose hold shares time with that window was inside with it (`overlap`, per pair).

import { formatMs } from '../duration.js';
import type { NewFinding } from './checker.js';
import { clientLabel, shortOwner, type TraceClient } from './events.js';
import { traceTime } from './format.js';
import type { Acquisition, HolderAct, Loss, StaleWindow } from './open-losses.js';

/** `6f1c2a3b…:1 (worker-1@127.0.0.1:5001)`: short enough for one line of a finding. */
export const who = (owner: string, client: TraceClient | undefined) => `${shortOwner(owner)} (${client?.name && client.addr ? `${client.name}@${client.addr}` : clientLabel(client)})`;

const ACT_WORDS: Record<HolderAct, string> = { renew: 'its renewal was refused', release: 'its release was refused', write: 'it set the key again without NX' };
const FIRST_ACT_WORDS: Record<HolderAct, string> = { renew: 'it tried to renew', release: 'it tried to release', write: 'it set the key again without NX' };

/** The stale owner worked without its lock from the expiry to its last act as holder seen. */
export function expiredWhileHeld(lock: string, owner: string, loss: Loss, w: StaleWindow): NewFinding {
  const { first, last } = w;
  const later = last.t > first.t ? `, and went on as its holder until ${traceTime(last.t)} (${ACT_WORDS[last.act]})` : '';
  return {
    kind: 'expired-while-held',
    from: loss.at,
    to: last.t,
    owners: [owner],
    clients: [w.client ?? {}],
    message: `${who(owner, w.client)}'s lease on ${lock} ran out at ${traceTime(loss.at)}; ${FIRST_ACT_WORDS[first.act]} at ${traceTime(first.t)}${first.act === 'write' ? '' : ' and was refused'}${later}: it worked without the lock for ${formatMs(last.t - loss.at)}`,
  };
}

/** The time `other`'s hold shares with the stale owner's window: from its acquisition to its end or the owner's last act. */
export function overlap(lock: string, owner: string, w: StaleWindow, other: Acquisition): NewFinding {
  const to = Math.min(w.last.t, other.end ?? w.last.t);
  const held = other.end !== undefined && other.end < w.last.t ? ` and held it until ${traceTime(other.end)}` : '';
  return {
    kind: 'overlap',
    from: other.t,
    to,
    owners: [owner, other.owner],
    clients: [w.client ?? {}, other.client ?? {}],
    message: `${who(other.owner, other.client)} acquired ${lock} at ${traceTime(other.t)}${held} while ${who(owner, w.client)} still acted as its holder until ${traceTime(w.last.t)}: both may have been inside for ${formatMs(to - other.t)}`,
  };
}
