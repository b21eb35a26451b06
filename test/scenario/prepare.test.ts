import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareSandbox } from '../../src/scenario/prepare.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, scenario } from './fixture.js';

// A variant's start needs a node answering as primary. When the first status probe finds none
// (a probe that missed on a busy machine, a promotion still under way), the start asks again
// within a bound instead of calling the sandbox broken. The node here really is a replica when
// the start begins and really is promoted by a timer later: a stopped (SIGSTOP) node would not
// do, since the start's revive resumes stopped nodes before it asks for a primary.

const PROMOTE_AFTER_MS = 2000;
const UNSAFE = { name: 'unsafe', description: 'as written', expect: [] };

describe('prepareSandbox: waiting for a primary', () => {
  const fx = useSandbox({ topology: 'single', name: 'prepare' });
  // What the node replicates from: a loopback listener that drops every connection, so the
  // replica never syncs from anyone (least of all another test's server on a reused port).
  let upstream: Server;
  beforeAll(async () => {
    upstream = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  /** The sandbox's one node made a replica of `upstream`: no node answers as primary. */
  const demoted = async () => {
    const redis = fx.client(fx.sandbox.nodes[0]!.port);
    await redis.call('REPLICAOF', '127.0.0.1', String((upstream.address() as { port: number }).port));
    return redis;
  };
  const variantStart = () => prepareSandbox(fx.sandbox, scenario({ clients: ['A'], steps: [acquire('A', 0)] }), UNSAFE);

  it('starts once a node that was a replica at the first probe answers as primary, within the bound', async () => {
    const redis = await demoted();
    const order: string[] = [];
    const promote = setTimeout(() => {
      void redis.call('REPLICAOF', 'NO', 'ONE').then(() => order.push('promoted'));
    }, PROMOTE_AFTER_MS);
    try {
      expect((await fx.sandbox.status()).nodes.map((n) => n.role)).toEqual(['replica']);
      await variantStart();
      order.push('prepared');
    } finally {
      clearTimeout(promote);
      await redis.call('REPLICAOF', 'NO', 'ONE');
    }
    expect(order).toEqual(['promoted', 'prepared']);
    expect((await fx.sandbox.status()).nodes.map((n) => n.role)).toEqual(['primary']);
  }, 20_000);

  it('still says so, after its bound, when no node ever answers as primary', async () => {
    const redis = await demoted();
    try {
      await expect(variantStart()).rejects.toThrow('sandbox "prepare" has no node answering as primary');
    } finally {
      await redis.call('REPLICAOF', 'NO', 'ONE');
    }
  }, 20_000);
});
