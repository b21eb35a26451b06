import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli } from '../helpers/cli-process.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, useSandbox } from '../helpers/sandbox.js';

// `trace --nodes` on a real 3-node Redlock sandbox: one MONITOR per node, events tagged with their
// node, and the quorum view. A takes n1 and n2 (a majority of 3); n2 restarts without its data
// (the trace is blind on it, then finds A's key gone); B takes n2 and n3: a second majority while
// A is within its validity. The recording carries the nodes, so `--from` finds the same overlap.

const fx = useSandbox({ topology: 'redlock', nodes: 3, name: 'trace-redlock-nodes' });
const env = tempStateEnv();
const dir = mkdtempSync(join(tmpdir(), 'redlock-trace-nodes-'));

beforeAll(() => ensureBuilt(), 180_000);
afterEach(() => killStartedClis());

const lines = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('trace --nodes on a 3-node Redlock sandbox', () => {
  it('follows every node, and finds two majorities at once through the node that restarted empty', async () => {
    const nodes = fx.sandbox.nodes.map((n) => ({ name: n.name, port: n.port, addr: `127.0.0.1:${n.port}` }));
    const record = join(dir, 'redlock.ndjson');
    const trace = spawnCli(['trace', '--nodes', nodes.map((n) => `redis://${n.addr}`).join(','), '--json', '--record', record, '--for', '60s'], env, 90_000);
    await trace.waitFor(/following 3 Redlock nodes/);
    const on = (name: string) => fx.client(nodes.find((n) => n.name === name)!.port);

    for (const n of ['n1', 'n2']) expect(await on(n).set('payments', 'token-of-a', 'PX', 10_000, 'NX')).toBe('OK');
    await eventually(async () => lines(trace.out()).filter((e) => e.kind === 'acquired').length === 2, 10_000);
    await fx.sandbox.restart('n2', { amnesia: true });
    await trace.waitFor(new RegExp(`following ${nodes[1]!.addr} again`), 15_000);
    for (const n of ['n2', 'n3']) expect(await on(n).set('payments', 'token-of-b', 'PX', 10_000, 'NX')).toBe('OK');
    await eventually(async () => lines(trace.out()).some((e) => e.type === 'finding'), 10_000);
    trace.child.kill('SIGINT');
    expect(await trace.exited).toBe(7);

    const out = lines(trace.out());
    const taken = out.filter((e) => e.kind === 'acquired').map((e) => `${e.owner}@${e.node}`);
    expect([...taken].sort()).toEqual([`token-of-a@${nodes[0]!.addr}`, `token-of-a@${nodes[1]!.addr}`, `token-of-b@${nodes[1]!.addr}`, `token-of-b@${nodes[2]!.addr}`].sort());
    expect(out.filter((e) => ['blind', 'unblind'].includes(String(e.kind))).map((e) => [e.kind, e.node])).toEqual([
      ['blind', nodes[1]!.addr],
      ['unblind', nodes[1]!.addr],
    ]);
    const findings = out.filter((e) => e.type === 'finding');
    expect(findings.map((f) => [f.kind, f.owners])).toEqual([['overlap', ['token-of-a', 'token-of-b']]]);
    expect(String(findings[0]!.message)).toContain(`${nodes[1]!.addr} counted for both: it restarted without its data and forgot the key`);

    // The recording names its nodes (header version 2): read back, the same overlap.
    const header = JSON.parse(readFileSync(record, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    expect([header.version, header.nodes]).toEqual([2, nodes.map((n) => n.addr)]);
    const replayed = await runCli(['trace', '--from', record, '--json'], env);
    expect(replayed.code).toBe(7);
    expect(lines(replayed.stdout).filter((e) => e.type === 'finding').map((f) => [f.kind, f.owners])).toEqual([['overlap', ['token-of-a', 'token-of-b']]]);
  }, 120_000);
});
