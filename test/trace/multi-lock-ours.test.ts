import { describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { knownDigest } from '../../src/core/trace/digest-catalogue.js';
import { multiLock } from '../../src/locks/multi-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { watchCommands } from '../helpers/monitor.js';
import { startTrace } from './trace-fixture.js';

// Our --kind multi-lock under a live trace that attached after its scripts were loaded: the trace
// sees EVALSHA and the commands our Lua runs (type guards, HGETALL of the owner's values), and must
// read them as it reads Redisson's: one lock per value.

const fx = useLockServer();
const G = 'class_100';
const A = '71b96ce8-2746-4c1e-9d3a-2f5b8c7e6a10:1';
const B = '0c2d4e6f-8a1b-4c3d-9e5f-7a8b9c0d1e2f:57';
const req = (owner: string, values?: string[]) => ({ key: G, owner, leaseMs: 30_000, values });
const name = (v: string) => `${G}[${v}]`;

describe('trace reads our multi-lock traffic', () => {
  it('acquired, refused, renewed and released per value, from EVALSHA alone', async () => {
    await multiLock.tryAcquire(fx.env, req(A, ['warm']));
    await multiLock.renew(fx.env, req(A));
    await multiLock.release(fx.env, req(A));

    const trace = await startTrace(parseEndpointUrl(fx.server.url), { wants: (lock) => lock === G || lock.startsWith('trace-marker') });
    const watch = await watchCommands(fx.server);
    expect((await multiLock.tryAcquire(fx.env, req(A, ['a', 'b']))).acquired).toBe(true);
    expect((await multiLock.tryAcquire(fx.env, req(B, ['b', 'c']))).acquired).toBe(false);
    expect((await multiLock.tryAcquire(fx.env, req(B, ['c']))).acquired).toBe(true);
    expect(await multiLock.renew(fx.env, req(A))).toBe(true);
    expect(await multiLock.release(fx.env, req(A))).toBe('released');
    await trace.stop(fx.raw);
    watch.close();

    const calls = watch.seen.filter((l) => l.source !== 'lua' && /^EVAL/i.test(l.args[0]!) && l.args.includes(G));
    expect(calls.map((l) => [l.args[0]!.toUpperCase(), knownDigest(l.args[1]!)?.near])).toEqual([
      ['EVALSHA', 'multi-acquire'],
      ['EVALSHA', 'multi-acquire'],
      ['EVALSHA', 'multi-acquire'],
      ['EVALSHA', 'multi-renew'],
      ['EVALSHA', 'multi-release'],
    ]);
    const events = trace.events.filter((e) => e.lock.startsWith(`${G}[`) && e.kind !== 'attempt');
    expect(events.map((e) => [e.kind, e.lock, e.owner])).toEqual([
      ['acquired', name('a'), A],
      ['acquired', name('b'), A],
      ['refused', name('b'), B],
      ['acquired', name('c'), B],
      ['renewed', name('a'), A],
      ['renewed', name('b'), A],
      ['released', name('a'), A],
      ['released', name('b'), A],
    ]);
    expect(trace.findings.filter((f) => f.lock.startsWith(G))).toEqual([]);
  }, 60_000);
});
