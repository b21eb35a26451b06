// Valid scenario files, feature by feature: what the runner gets is the model (camelCase,
// durations in ms, defaults filled in, steps in time order).

import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/scenario/model.js';
import { stepsOf } from '../../src/scenario/model.js';
import { parseScenario } from '../../src/scenario/load.js';
import { BASE, edit } from './fixtures.js';

/** BASE with its steps replaced: `lines` are step entries (without the leading `  - `). */
function withSteps(lines: readonly string[], text = BASE): string {
  const start = text.indexOf('steps:\n');
  const end = text.indexOf('variants:');
  return `${text.slice(0, start)}steps:\n${lines.map((l) => `  - ${l}\n`).join('')}${text.slice(end)}`;
}

const stepsFrom = (lines: readonly string[], text = BASE): readonly Step[] => parseScenario(withSteps(lines, text), 'x.yaml').steps;

describe('a minimal file', () => {
  it('becomes the model with every default filled in', () => {
    expect(parseScenario(BASE, 'scenarios/lost-lock.yaml')).toEqual({
      name: 'lost-lock',
      file: 'scenarios/lost-lock.yaml',
      title: 'Lost lock',
      summary: 'B takes the lock while A is paused',
      narration: 'A pauses past its lease.',
      sources: [],
      lookFor: [],
      sandbox: { topology: 'replicated', fakeClock: false, config: {} },
      lock: { kind: 'token', key: 'orders' },
      resource: { fencing: 'off' },
      clients: [
        { name: 'A', stopOnLost: false },
        { name: 'B', stopOnLost: true },
      ],
      seed: [],
      steps: [
        { at: 0, client: 'A', do: 'acquire', leaseMs: 300, watchdogLeaseMs: 900, waitMs: 0, mode: 'atomic', checkValidity: true },
        { at: 20, client: 'A', do: 'pause', forMs: 500 },
        { at: 400, only: ['fixed'], client: 'B', do: 'acquire', watchdogLeaseMs: 900, waitMs: 1000, mode: 'atomic', checkValidity: true },
        { at: 1000, fault: 'kill', node: 'n1' },
      ],
      variants: [
        { name: 'unsafe', description: 'no fencing', expect: ['stale-write'] },
        { name: 'fixed', description: 'fencing', expect: [] },
      ],
      starvationMs: 2000,
      settleMs: 500,
    });
  });

  it('names the scenario after its file, .yaml or .yml', () => {
    expect(parseScenario(BASE, '/tmp/a/my-race.yml').name).toBe('my-race');
  });
});

describe('client actions', () => {
  it('acquire with every option', () => {
    expect(
      stepsFrom([
        '{ at: 0ms, client: A, do: acquire, watchdog-lease: 600ms, max-renewals: 2, wait: 1.5s, kind: write, wait-replicas: 1, check-validity: false }',
        '{ at: 1ms, client: A, do: acquire, lease: 1s, mode: setnx-then-expire, gap: 50ms }',
        '{ at: 2ms, client: A, do: acquire, lease: 1s, mode: setnx-then-expire }',
        '{ at: 3ms, client: B, do: acquire, lease: 2s, mode: resend-on-timeout, timeout: 100ms }',
      ]),
    ).toEqual([
      { at: 0, client: 'A', do: 'acquire', watchdogLeaseMs: 600, maxRenewals: 2, waitMs: 1500, kind: 'write', mode: 'atomic', waitReplicas: 1, checkValidity: false },
      { at: 1, client: 'A', do: 'acquire', leaseMs: 1000, watchdogLeaseMs: 900, waitMs: 0, mode: 'setnx-then-expire', gapMs: 50, checkValidity: true },
      { at: 2, client: 'A', do: 'acquire', leaseMs: 1000, watchdogLeaseMs: 900, waitMs: 0, mode: 'setnx-then-expire', gapMs: 0, checkValidity: true },
      { at: 3, client: 'B', do: 'acquire', leaseMs: 2000, watchdogLeaseMs: 900, waitMs: 0, mode: 'resend-on-timeout', timeoutMs: 100, checkValidity: true },
    ]);
  });

  it('release, renew and the rest', () => {
    expect(
      stepsFrom([
        '{ at: 0, client: A, do: release }',
        '{ at: 1ms, client: A, do: release, mode: naive-del }',
        '{ at: 2ms, client: A, do: release, mode: get-then-del, gap: 200ms }',
        '{ at: 3ms, client: A, do: renew }',
        '{ at: 4ms, client: A, do: renew, mode: reset, lease: 2s, background: true }',
        '{ at: 5ms, client: A, do: enter }',
        '{ at: 6ms, client: A, do: write, value: 7 }',
        '{ at: 7ms, client: A, do: incr }',
        '{ at: 8ms, client: A, do: incr, gap: 40ms }',
        '{ at: 9ms, client: A, do: leave }',
        '{ at: 10ms, client: A, do: pause, for: 2m }',
        '{ at: 11ms, client: A, do: partition }',
        '{ at: 12ms, client: A, do: partition, nodes: [n2, primary] }',
        '{ at: 13ms, client: A, do: heal }',
        '{ at: 14ms, client: B, do: crash }',
      ]),
    ).toEqual([
      { at: 0, client: 'A', do: 'release', mode: 'safe' },
      { at: 1, client: 'A', do: 'release', mode: 'naive-del' },
      { at: 2, client: 'A', do: 'release', mode: 'get-then-del', gapMs: 200 },
      { at: 3, client: 'A', do: 'renew', mode: 'safe' },
      { at: 4, client: 'A', do: 'renew', mode: 'reset', leaseMs: 2000, background: true },
      { at: 5, client: 'A', do: 'enter' },
      { at: 6, client: 'A', do: 'write', value: 7 },
      { at: 7, client: 'A', do: 'incr', gapMs: 0 },
      { at: 8, client: 'A', do: 'incr', gapMs: 40 },
      { at: 9, client: 'A', do: 'leave' },
      { at: 10, client: 'A', do: 'pause', forMs: 120_000 },
      { at: 11, client: 'A', do: 'partition' },
      { at: 12, client: 'A', do: 'partition', nodes: ['n2', 'primary'] },
      { at: 13, client: 'A', do: 'heal' },
      { at: 14, client: 'B', do: 'crash' },
    ]);
  });
});

describe('faults and notes', () => {
  it('every fault verb with its options', () => {
    expect(
      stepsFrom(
        [
          '{ at: 0ms, fault: kill, node: n1 }',
          '{ at: 1ms, fault: restart, node: n1, amnesia: true }',
          '{ at: 2ms, fault: pause, node: s1, for: 3s }',
          '{ at: 3ms, fault: resume, node: s1 }',
          '{ at: 4ms, fault: failover }',
          '{ at: 5ms, fault: stall-replication, node: n2, for: 2s }',
          '{ at: 6ms, fault: clock, node: n3, value: +5s }',
          '{ at: 7ms, fault: clock, node: n3, value: x10 }',
          '{ at: 8ms, fault: latency, node: primary, value: 0.2s }',
          '{ at: 9ms, fault: partition, node: n1 }',
          '{ at: 10ms, fault: heal, node: n1 }',
          '{ at: 11ms, fault: flush, node: n2 }',
          '{ at: 12ms, note: "n3\'s clock jumps 5 s" }',
        ],
        edit('topology: replicated', 'topology: sentinel'),
      ),
    ).toEqual([
      { at: 0, fault: 'kill', node: 'n1' },
      { at: 1, fault: 'restart', node: 'n1', amnesia: true },
      { at: 2, fault: 'pause', node: 's1', forMs: 3000 },
      { at: 3, fault: 'resume', node: 's1' },
      { at: 4, fault: 'failover' },
      { at: 5, fault: 'stall-replication', node: 'n2', forMs: 2000 },
      { at: 6, fault: 'clock', node: 'n3', value: '+5s' },
      { at: 7, fault: 'clock', node: 'n3', value: 'x10' },
      { at: 8, fault: 'latency', node: 'primary', value: '200ms' },
      { at: 9, fault: 'partition', node: 'n1' },
      { at: 10, fault: 'heal', node: 'n1' },
      { at: 11, fault: 'flush', node: 'n2' },
      { at: 12, note: "n3's clock jumps 5 s" },
    ]);
  });

  it('redlock nodes as many as nodes: says', () => {
    const redlock = edit('topology: replicated', 'topology: redlock, nodes: 7');
    expect(stepsFrom(['{ at: 0ms, fault: kill, node: n7 }'], redlock)).toEqual([{ at: 0, fault: 'kill', node: 'n7' }]);
    expect(parseScenario(redlock, 'x.yaml').sandbox).toEqual({ topology: 'redlock', nodes: 7, fakeClock: false, config: {} });
  });
});

describe('order and variants', () => {
  it('sorts steps by at, keeping file order for the same time', () => {
    const steps = stepsFrom([
      '{ at: 1s, client: A, do: leave }',
      '{ at: 0, client: A, do: acquire, lease: 2s }',
      '{ at: 500ms, note: first at 500 }',
      '{ at: 0.5s, client: A, do: enter }',
      '{ at: 500ms, note: third at 500 }',
    ]);
    expect(steps.map((s) => s.at)).toEqual([0, 500, 500, 500, 1000]);
    expect(steps.slice(1, 4)).toEqual([{ at: 500, note: 'first at 500' }, { at: 500, client: 'A', do: 'enter' }, { at: 500, note: 'third at 500' }]);
  });

  it('only takes one variant or a list, and stepsOf selects by it', () => {
    const scenario = parseScenario(
      withSteps(['{ at: 0ms, client: A, do: enter }', '{ at: 1ms, client: A, do: write, value: 1, only: unsafe }', '{ at: 2ms, client: A, do: leave, only: [unsafe, fixed] }']),
      'x.yaml',
    );
    expect(stepsOf(scenario, 'unsafe').map((s) => s.at)).toEqual([0, 1, 2]);
    expect(stepsOf(scenario, 'fixed').map((s) => s.at)).toEqual([0, 2]);
  });

  it('variant overrides, and expect as one kind or a list (kept in the checker order)', () => {
    const text = edit(
      '  fixed: { description: fencing, expect: safe }\n',
      `  fixed:
    description: fencing
    expect: safe
    lock: { kind: fenced }
    resource: { fencing: at-least }
    sandbox: { config: { min-replicas-to-write: 1 } }
  one: { description: one kind, expect: lost-update }
  two: { description: two kinds, expect: [stale-write, mutual-exclusion] }
  ns: { description: namespaced key, expect: safe, lock: { key: "lock:orders" } }
`,
    );
    expect(parseScenario(text, 'x.yaml').variants).toEqual([
      { name: 'unsafe', description: 'no fencing', expect: ['stale-write'] },
      { name: 'fixed', description: 'fencing', expect: [], lock: { kind: 'fenced' }, resource: { fencing: 'at-least' }, sandbox: { config: { 'min-replicas-to-write': '1' } } },
      { name: 'one', description: 'one kind', expect: ['lost-update'] },
      { name: 'two', description: 'two kinds', expect: ['mutual-exclusion', 'stale-write'] },
      { name: 'ns', description: 'namespaced key', expect: [], lock: { key: 'lock:orders' } },
    ]);
  });
});

describe('the other top-level keys', () => {
  it('sources, look-for, sandbox options, clients as mappings, seed, starvation and settle', () => {
    const text = edit(
      'sandbox: { topology: replicated }\n',
      `sources: [Redis distlock page, "redis-py #416"]
look-for:
  - A's release at 0.7 s
sandbox:
  topology: redlock
  nodes: 3
  fake-clock: true
  config: { appendonly: "no", hz: 100 }
resource: { fencing: strict }
seed:
  - { string: orders, value: app data }
  - { hash: "orders:meta", fields: { owner: billing, version: 3 } }
starvation: 5s
settle: 0
`,
    );
    const scenario = parseScenario(edit('  - { name: B, stop-on-lost: true }\n', '  - { name: B, kind: read, reach: [n1, n3] }\n', text), 'x.yaml');
    expect(scenario).toMatchObject({
      sources: ['Redis distlock page', 'redis-py #416'],
      lookFor: ["A's release at 0.7 s"],
      sandbox: { topology: 'redlock', nodes: 3, fakeClock: true, config: { appendonly: 'no', hz: '100' } },
      resource: { fencing: 'strict' },
      seed: [
        { type: 'string', key: 'orders', value: 'app data' },
        { type: 'hash', key: 'orders:meta', fields: { owner: 'billing', version: '3' } },
      ],
      starvationMs: 5000,
      settleMs: 0,
    });
    expect(scenario.clients).toEqual([
      { name: 'A', stopOnLost: false },
      { name: 'B', kind: 'read', reach: ['n1', 'n3'], stopOnLost: false },
    ]);
  });

  it('anchors and aliases, block-style steps and comments', () => {
    const text = withSteps([
      `at: 0ms   # block style
    client: A
    do: acquire
    lease: &lease 300ms`,
      '{ at: 10ms, client: B, do: acquire, lease: *lease, wait: 1s }',
    ]);
    expect(parseScenario(text, 'x.yaml').steps.map((s) => ('leaseMs' in s ? s.leaseMs : undefined))).toEqual([300, 300]);
  });
});
