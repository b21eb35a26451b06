import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { protocolFor } from '../locks/registry.js';
import type { LockEnv, LockKind, LockProtocol, LockRequest } from '../locks/types.js';
import type { RedisClient } from '../redis/connection.js';
import { acquireStep } from './client-acquire.js';
import type { ClientRuntime } from './client.js';
import type { ClientAction, ClientStep } from './model.js';

type Action<D extends ClientAction['do']> = Extract<ClientAction, { do: D }>;

/** Runs one queued client step (pause, crash, partition and heal never queue: the runner applies them at once). */
export async function runClientAction(c: ClientRuntime, step: ClientStep): Promise<void> {
  // Code that asked for the lock and was refused does not go on as if it had it (tryLock() == false).
  if (c.refused && step.do !== 'acquire') return c.note(`skipped ${step.do}: ${c.name} did not get the lock`);
  switch (step.do) {
    case 'acquire':
      return acquireStep(c, step);
    case 'release':
      return release(c, step);
    case 'renew':
      return renew(c, step);
    case 'enter':
      if (skipWhenLost(c, 'enter')) return;
      c.inside = true;
      return c.op('enter', {}, async (rec) => rec.ok(withHeld(await c.held())));
    case 'leave':
      if (!c.inside && c.stopsOnLost && c.lost) return c.note('skipped leave: stopped its work when the lock was lost');
      c.inside = false;
      return c.op('leave', {}, async (rec) => rec.ok());
    case 'write':
      return write(c, step.value);
    case 'incr':
      return incr(c, step.gapMs);
    case 'pause':
    case 'crash':
    case 'partition':
    case 'heal':
      throw new Error(`${step.do} is applied by the runner, not queued`);
  }
}

const withHeld = (held: boolean | undefined): { held?: boolean } => (held === undefined ? {} : { held });

/** A client that stops on loss and was told its lock is gone does not touch the resource again. */
function skipWhenLost(c: ClientRuntime, what: string): boolean {
  if (!c.stopsOnLost || !c.lost) return false;
  c.note(`skipped ${what}: lock lost`);
  return true;
}

/** The lock the client acts on: the one it believes it holds, else a fresh request in its default kind. */
function current(c: ClientRuntime): { kind: LockKind; protocol: LockProtocol; env: LockEnv; req: LockRequest } {
  if (c.lock) return c.lock;
  const kind = c.kindOf({});
  return { kind, protocol: protocolFor(kind), env: c.envFor(kind), req: { key: c.ctx.key, owner: c.ownerFor(kind), leaseMs: c.real(30_000) } };
}

/** The clients a release or renew command goes to: every reachable Redlock node, or the one connection. */
function clientsOf(env: LockEnv): RedisClient[] {
  const conns = env.nodes.length > 0 ? env.nodes : [env.conn];
  return conns.filter((n) => !n.offline).map((n) => n.client);
}

function needsToken(c: ClientRuntime, kind: LockKind, mode: string): void {
  if (protocolFor(kind).ownerFormat !== 'token') {
    throw new UsageError(`${mode} works on token locks (a plain string), and ${c.name} uses ${kind}: set kind: token or redlock`);
  }
}

async function release(c: ClientRuntime, step: Action<'release'>): Promise<void> {
  const lock = current(c);
  await c.op('release', { detail: step.mode === 'safe' ? 'owner-checked' : step.mode === 'naive-del' ? 'plain DEL' : `GET, then DEL ${formatDuration(step.gapMs ?? 0)} later` }, async (rec) => {
    const done = (): void => {
      c.lock?.watchdog?.stop();
      c.lock = undefined;
    };
    if (step.mode === 'safe') {
      const outcome = await lock.protocol.release(lock.env, lock.req);
      // A read release answers 0 both for one hold of several given back and for "mine is gone, other readers remain".
      if (outcome === 'decremented' && (lock.kind !== 'read' || (await c.held()) === true)) return rec.ok({ detail: 'hold count decremented, still held' });
      if (outcome === 'decremented') {
        done();
        return rec.ok({ detail: 'released; other readers still hold the lock' });
      }
      done();
      return outcome === 'released' ? rec.ok() : rec.fail({ detail: 'NOT OWNER: nothing deleted' });
    }
    needsToken(c, lock.kind, step.mode);
    if (step.mode === 'naive-del') {
      const victim = await whoHolds(c);
      const deleted = await Promise.all(clientsOf(lock.env).map((cl) => cl.call('DEL', lock.req.key)));
      done();
      return rec.ok({ detail: describeDelete(c, deleted, victim) });
    }
    const clients = clientsOf(lock.env);
    const seen = await Promise.all(clients.map((cl) => cl.call('GET', lock.req.key)));
    const matching = clients.filter((_, i) => seen[i] === lock.req.owner);
    if (matching.length === 0 || (lock.env.nodes.length > 0 && matching.length <= lock.env.nodes.length / 2)) {
      done();
      return rec.fail({ detail: 'NOT OWNER: GET saw another token' });
    }
    c.note(`GET saw its own token; DEL follows in ${formatDuration(step.gapMs ?? 0)}`);
    await c.gate.sleep(c.real(step.gapMs ?? 0), c.abort.signal);
    const victim = await whoHolds(c);
    const deleted = await Promise.all(matching.map((cl) => cl.call('DEL', lock.req.key)));
    done();
    rec.ok({ detail: describeDelete(c, deleted, victim) });
  });
}

/** Whose lock a DEL is about to remove: the runner's read of the first node, for the timeline only. */
async function whoHolds(c: ClientRuntime): Promise<string[]> {
  const reader = c.ctx.readers[0];
  if (!reader) return [];
  return reader.peek(c.ctx.key).then(
    (p) => p.holders.map((h) => c.ctx.names(h.owner)),
    () => [],
  );
}

function describeDelete(c: ClientRuntime, deleted: unknown[], victims: readonly string[]): string {
  const removed = deleted.filter((d) => d === 1).length;
  if (removed === 0) return 'DEL found no key';
  const others = victims.filter((v) => v !== c.name);
  return others.length > 0 ? `DEL removed ${others.join(', ')}'s lock` : 'DEL removed the key';
}

async function renew(c: ClientRuntime, step: Action<'renew'>): Promise<void> {
  const lock = current(c);
  const leaseMs = step.leaseMs ?? (c.lock?.leaseMs ?? 30_000);
  const req = { ...lock.req, leaseMs: c.real(leaseMs) };
  await c.op('renew', { detail: `${step.mode === 'safe' ? 'compare-and-extend' : 'SET again, no check'} to ${formatDuration(leaseMs)}` }, async (rec) => {
    if (step.mode === 'safe') {
      if (await lock.protocol.renew(lock.env, req)) return rec.ok({ leaseMs });
      rec.fail({ detail: 'lock lost: not the owner any more' });
      return c.lockLost();
    }
    needsToken(c, lock.kind, 'renew mode reset');
    await Promise.all(clientsOf(lock.env).map((cl) => cl.call('SET', req.key, req.owner, 'PX', req.leaseMs)));
    rec.ok({ leaseMs, detail: 'SET the token again, whoever held the lock' });
  });
}

async function write(c: ClientRuntime, value: number): Promise<void> {
  if (skipWhenLost(c, 'write')) return;
  const token = c.fence;
  const carried = token !== undefined ? { token } : {};
  await c.op('write', { value, ...carried }, async (rec) => {
    const held = await c.held();
    c.gate.check();
    const result = c.ctx.resource.write(c.name, value, token);
    rec.ok({ value, ...carried, accepted: result.accepted, ...withHeld(held), ...(result.reason ? { detail: result.reason } : {}) });
  });
}

async function incr(c: ClientRuntime, gapMs: number): Promise<void> {
  if (skipWhenLost(c, 'incr')) return;
  await c.op('incr', {}, async (rec) => {
    const read = c.ctx.resource.readCounter();
    await c.gate.sleep(c.real(gapMs), c.abort.signal);
    // Told during the gap that the lock is gone: code that stops on loss abandons the write.
    if (skipWhenLost(c, 'the increment\'s write')) return rec.fail({ read, detail: 'lock lost: abandoned, nothing written' });
    const held = await c.held();
    c.gate.check();
    c.ctx.resource.writeCounter(read + 1);
    rec.ok({ read, value: read + 1, accepted: true, ...withHeld(held) });
  });
}
