import { describe, expect, it } from 'vitest';
import { runScript } from '../../src/redis/scripts.js';
import { useLockServer } from '../helpers/fixture.js';

// Scripts go as EVAL the first time on a client and as EVALSHA after; a server that lost its
// script cache (SCRIPT FLUSH, a restart) answers NOSCRIPT and gets the text again.

const fx = useLockServer();

async function scriptCalls(): Promise<{ eval: number; evalsha: number }> {
  const info = await fx.raw.info('commandstats');
  const calls = (name: string): number => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return { eval: calls('eval'), evalsha: calls('evalsha') };
}

describe('runScript', () => {
  it('sends the text once, then the SHA; after SCRIPT FLUSH it sends the text again', async () => {
    const client = fx.env.conn.client;
    const acquire = () => runScript(client, 'tokenAcquire', ['orders'], ['token-1', 10_000]);
    const release = () => runScript(client, 'tokenRelease', ['orders'], ['token-1']);
    await fx.raw.config('RESETSTAT');
    expect(await acquire()).toEqual([1, 1, -1]);
    expect(await release()).toBe(1);
    expect(await acquire()).toEqual([1, 1, -1]);
    expect(await scriptCalls()).toEqual({ eval: 2, evalsha: 1 });
    await fx.raw.script('FLUSH');
    await fx.raw.config('RESETSTAT');
    expect(await release()).toBe(1);
    // EVALSHA refused with NOSCRIPT, then EVAL with the text: the release still happened once.
    expect(await scriptCalls()).toEqual({ eval: 1, evalsha: 1 });
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('turns a wrong-type refusal into a clear error and changes nothing', async () => {
    await fx.raw.hset('orders', 'field', 'value');
    await expect(runScript(fx.env.conn.client, 'tokenAcquire', ['orders'], ['token-1', 10_000])).rejects.toThrow(
      /holds a Redisson lock\/hash/,
    );
    expect(await fx.raw.hgetall('orders')).toEqual({ field: 'value' });
  });
});
