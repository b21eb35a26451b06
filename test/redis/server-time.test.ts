import { describe, expect, it } from 'vitest';
import { compareAndDelete } from '../../src/redis/compare-and-delete.js';
import { runScript } from '../../src/redis/scripts.js';
import { timeReplyMs, withServerTimes } from '../../src/redis/server-time.js';
import { useLockServer } from '../helpers/fixture.js';

// Inside withServerTimes each lock command carries the server's TIME, taken right after it ran
// (race's server-timed waits and holds); outside it nothing extra reaches the server.

const fx = useLockServer();

async function calls(name: string): Promise<number> {
  const info = await fx.raw.info('commandstats');
  return Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

const serverNow = async (): Promise<number> => timeReplyMs(await fx.raw.time());

describe('withServerTimes', () => {
  it("gives the server's time after each script run and compare-and-delete, in order, with their replies unchanged", async () => {
    const client = fx.env.conn.client;
    const before = await serverNow();
    const { value, times } = await withServerTimes(async () => {
      const taken = await runScript(client, 'tokenAcquire', ['orders'], ['token-1', 10_000]);
      const refused = await runScript(client, 'tokenAcquire', ['orders'], ['token-2', 10_000]);
      const released = await compareAndDelete(client, 'orders', 'token-1');
      return [taken, refused, released];
    });
    const after = await serverNow();
    expect(value).toEqual([[1, 1, -1], [0, expect.any(Number), 'token-1', '1'], true]);
    expect(times).toHaveLength(3);
    expect([before, ...times, after]).toEqual([before, ...times, after].sort((a, b) => a - b));
  });

  it('adds no TIME outside it, and a script error still throws inside it (its time recorded)', async () => {
    const client = fx.env.conn.client;
    await fx.raw.config('RESETSTAT');
    await runScript(client, 'tokenAcquire', ['plain'], ['token-1', 10_000]);
    expect(await calls('time')).toBe(0);
    await fx.raw.hset('a-hash', 'f', '1');
    const timed = withServerTimes(() => runScript(client, 'tokenAcquire', ['a-hash'], ['token-1', 10_000]));
    await expect(timed).rejects.toThrow(/holds a Redisson lock\/hash/);
    expect(await calls('time')).toBe(1);
  });

  it('reads TIME replies as epoch ms to the microsecond, NaN for anything else', () => {
    expect(timeReplyMs(['1700000000', '123456'])).toBe(1_700_000_000_123.456);
    expect(timeReplyMs(['x', '1'])).toBeNaN();
    expect(timeReplyMs(null)).toBeNaN();
  });
});
