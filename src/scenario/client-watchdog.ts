import type { LostReason } from '../core/hold-events.js';
import { checkHeld, startWatchdog, type Watchdog, type WatchdogEnd } from '../locks/watchdog.js';
import type { ClientRuntime, HeldLock } from './client.js';

const LOST_REASON: Record<LostReason, string> = {
  'renewal-refused': 'the renewal was refused',
  gone: 'the server no longer has it',
  'lease-ran-out': 'no renewal got through before the lease ran out',
};

/**
 * The client's watchdog (renewing every lease/3) or, for a fixed lease of a client that reacts to
 * loss, the check-only loop. It runs on the client's time: a paused client sends no renewal and
 * hears about a lost lock only once it runs again. `maxRenewals` stops renewing after that many
 * (the bounded hold); the lease then runs out unless the client releases first.
 */
export function startClientWatchdog(c: ClientRuntime, lock: HeldLock, mode: 'watchdog' | 'fixed', leaseStartedAt: number, maxRenewals?: number): Watchdog {
  const onTime = async (): Promise<void> => {
    await c.gate.wait();
    c.gate.check();
  };
  let failing = false;
  // Renewals are due every lease/3 from the last one sent (Redisson's LockTask), and never before
  // the previous one came back (or its retry delay ran): how late each renewal's timer fired.
  const renewEvery = Math.max(1, Math.floor(lock.req.leaseMs / 3));
  let dueAt = Math.max(leaseStartedAt + renewEvery, Date.now());
  const watchdog = startWatchdog({
    env: lock.env,
    req: lock.req,
    mode,
    leaseStartedAt,
    protocol: { renew: async (env, req) => (await onTime(), lock.protocol.renew(env, req)) },
    check: async (env, req) => (await onTime(), checkHeld(env, req)),
    onEvent: (e) => {
      if (e.type === 'renewing') return c.ctx.onTimer?.(`${c.name}'s watchdog renewal`, 0, Math.max(0, e.at - dueAt));
      if (e.type === 'retrying') {
        dueAt = Date.now() + e.retryInMs;
        if (!failing) c.note(`renewal failed (${e.error}), retrying`);
        failing = true;
        return;
      }
      dueAt = Math.max(e.at + renewEvery, Date.now());
      failing = false;
      c.ctx.recorder.renewed(c.name, e.renewals);
      if (maxRenewals !== undefined && e.renewals >= maxRenewals) {
        watchdog.stop();
        c.note(`watchdog stops after ${e.renewals} renewals (max)`);
        // A client that reacts to loss still learns when this last lease runs out.
        if (c.stopsOnLost && c.lock === lock) lock.watchdog = startClientWatchdog(c, lock, 'fixed', e.at);
      }
    },
  });
  void watchdog.ended.then((end) => reportEnd(c, lock, end));
  return watchdog;
}

async function reportEnd(c: ClientRuntime, lock: HeldLock, end: WatchdogEnd): Promise<void> {
  if (end.type === 'stopped') return;
  // The client hears about it when it runs: after a pause, not during it.
  await c.gate.wait();
  if (c.gate.dead || c.lock !== lock) return;
  c.lockLost(end.type === 'expired' ? 'the lease ran out' : LOST_REASON[end.reason]);
}
