import { afterAll, expect, it } from 'vitest';
import type { WhoReport } from '../../src/core/who/model.js';
import { useRedisServer } from '../helpers/fixture.js';
import { describeWithPeer, startPeer, stopAllPeers, type PeerKind, type RedissonPeer } from '../helpers/redisson-peer.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `who` against the real Redisson (Java) client: a lock and a fair lock, each with a holder JVM
// (3 s watchdog: it renews every second) and a waiter JVM. A JVM opens a pool of connections, so
// the right connection is one of the JVM's own: the ones that appeared while it started, alone.

const fx = useRedisServer();
const env = tempStateEnv();
afterAll(async () => {
  await stopAllPeers();
});

const addrs = async (): Promise<Set<string>> =>
  new Set(String(await fx.raw.call('CLIENT', 'LIST')).split('\n').flatMap((l) => /addr=(\S+)/.exec(l)?.[1] ?? []));

async function until(what: string, check: () => Promise<boolean>, boundMs = 60_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a JVM and returns it with the connections it opened (none other starts meanwhile). */
async function started(kind: PeerKind, key: string, args: string[], ready: (peer: RedissonPeer) => Promise<unknown>): Promise<{ peer: RedissonPeer; conns: Set<string> }> {
  const before = await addrs();
  const peer = startPeer(fx.server.port, ['hold', kind, key, ...args], { watchdogMs: 3000 });
  await ready(peer);
  return { peer, conns: new Set([...(await addrs())].filter((a) => !before.has(a))) };
}

const subscribed = (channel: string) => async () => Number((await fx.raw.pubsub('NUMSUB', channel))[1]) >= 1;

describeWithPeer('who with the real Redisson (Java) client', () => {
  it('the holder and the waiter of a lock and of a fair lock, each on a connection of its own JVM', async () => {
    const holding = async (kind: PeerKind, key: string) => started(kind, key, ['60000'], (p) => p.waitFor('acquired', { timeoutMs: 60_000 }));
    const lockHolder = await holding('lock', 'r:lock');
    const lockWaiter = await started('lock', 'r:lock', ['1000', '--wait', '60000'], () => until('the lock waiter', subscribed('redisson_lock__channel:{r:lock}')));
    const fairHolder = await holding('fair', 'r:fair');
    const fairWaiter = await started('fair', 'r:fair', ['1000', '--wait', '60000'], () => until('the fair waiter', async () => (await fx.raw.llen('redisson_lock_queue:{r:fair}')) === 1));

    const r = await runCli(['who', 'r:*', '--json', '--full', '--sample', '5s', '--url', fx.server.url], env);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as WhoReport;
    const lock = (key: string) => report.locks.find((l) => l.key === key)!;
    for (const [key, holder, waiter] of [['r:lock', lockHolder, lockWaiter], ['r:fair', fairHolder, fairWaiter]] as const) {
      const l = lock(key);
      expect(l.library).toBe('redisson');
      const acquired = holder.peer.events.find((e) => e.event === 'acquired')!;
      expect(l.holders.map((h) => [h.owner, h.via, h.liveness.state])).toEqual([[acquired.token, 'monitor', 'alive']]);
      expect(holder.conns.has(l.holders[0]!.connection!.addr), `${key} holder ${l.holders[0]!.connection!.addr}`).toBe(true);
      expect(l.waiters.map((w) => w.via)).toEqual(['monitor']);
      expect(waiter.conns.has(l.waiters[0]!.connection!.addr), `${key} waiter ${l.waiters[0]!.connection!.addr}`).toBe(true);
    }
    expect(lock('r:fair').waiters[0]!.position).toBe(0);
    for (const p of [lockHolder, lockWaiter, fairHolder, fairWaiter]) await p.peer.stop();
  }, 180_000);
});
