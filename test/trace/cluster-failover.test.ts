import { parseEndpointUrl } from '../../src/core/endpoint.js';
import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { eventually, useSandbox } from '../helpers/sandbox.js';
import { startTrace } from './trace-fixture.js';

// A Cluster primary fails over while the trace follows it: a manual CLUSTER FAILOVER on its replica
// (the old primary lives on as a replica: no connection breaks), then a primary killed by pid (its
// replica is promoted after the node timeout). Either way the trace follows the promoted replica:
// what is taken there afterwards is seen, on that node.

const fx = useSandbox({ topology: 'cluster', name: 'trace-cluster-failover', replicas: 1 }, 90_000);
let app: Cluster | undefined;
afterAll(() => app?.disconnect());

/** A hash tag whose slot is in `[from, to]`: keys `{tag}...` all live on the primary serving it. */
function tagIn(from: number, to: number): string {
  for (let i = 0; i < 10_000; i++) {
    const slot = calculateSlot(`t${i}`);
    if (slot >= from && slot <= to) return `t${i}`;
  }
  throw new Error('no tag found');
}

const at = (port: number) => `127.0.0.1:${port}`;
const acquiredOn = (events: readonly TraceEvent[], lock: string) =>
  events.find((e) => e.kind === 'acquired' && e.lock === lock)?.node;

describe('trace across a Cluster failover', () => {
  it('follows the replica promoted by CLUSTER FAILOVER, and the one promoted after its primary was killed', async () => {
    const { sandbox } = fx;
    const [n1, n2, , n4, n5] = sandbox.nodes;
    app = new Cluster(sandbox.urls.cluster!.seeds.map((s) => ({ host: '127.0.0.1', port: Number(s.split(':')[1]) })));
    app.on('error', () => undefined);
    const first = tagIn(0, 5000); // served by n1, then n4
    const second = tagIn(5500, 10_000); // served by n2, then n5
    const trace = await startTrace(parseEndpointUrl(`redis://${at(n1!.port)}`));

    await app.set(`{${first}}:before`, 'tokA', 'PX', 60_000, 'NX');
    await eventually(async () => acquiredOn(trace.events, `{${first}}:before`) === at(n1!.port), 10_000);
    await fx.client(n4!.port).call('CLUSTER', 'FAILOVER');
    await eventually(async () => trace.status.includes(`failover: now following ${at(n4!.port)}`), 20_000);
    await eventually(async () => (await app!.set(`{${first}}:after`, 'tokB', 'PX', 60_000, 'NX')) === 'OK', 10_000);
    await eventually(async () => acquiredOn(trace.events, `{${first}}:after`) === at(n4!.port), 10_000);

    await app.set(`{${second}}:before`, 'tokC', 'PX', 60_000, 'NX');
    await eventually(async () => acquiredOn(trace.events, `{${second}}:before`) === at(n2!.port), 10_000);
    process.kill(n2!.pid, 'SIGKILL');
    await eventually(async () => trace.status.includes(`failover: now following ${at(n5!.port)}`), 30_000);
    await eventually(async () => (await app!.set(`{${second}}:after`, 'tokD', 'PX', 60_000, 'NX')) === 'OK', 15_000);
    await eventually(async () => acquiredOn(trace.events, `{${second}}:after`) === at(n5!.port), 10_000);
    const result = await trace.stop(app);

    expect(trace.events.filter((e) => e.kind === 'failover').map((e) => e.detail)).toEqual([
      `failover from ${at(n1!.port)} to ${at(n4!.port)}`,
      `failover from ${at(n2!.port)} to ${at(n5!.port)}`,
    ]);
    // Followed throughout: never blind.
    expect(trace.events.filter((e) => e.kind === 'blind')).toEqual([]);
    expect(result.session.blind).toEqual([]);
  }, 120_000);
});
