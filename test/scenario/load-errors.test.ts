// Every way a scenario file can be wrong, with the exact line a user sees: file:line:col of the
// offending node, the field path, and what was expected.

import { describe, expect, it } from 'vitest';
import { BASE, edit, parseError } from './fixtures.js';

const STEPS = 'acquire, release, renew, enter, leave, write, incr, pause, crash, partition, heal';
const TOP_KEYS = 'title, summary, narration, sources, look-for, sandbox, lock, resource, clients, seed, starvation, settle, tolerance, steps, variants';

describe('unknown names', () => {
  it.each([
    ['a misspelt step', 'do: acquire, lease: 300ms', 'do: acquier, lease: 300ms', `race.yaml:10:31: steps[0].do: unknown step "acquier"; expected one of ${STEPS}`],
    [
      'a misspelt fault',
      'fault: kill',
      'fault: kil',
      'race.yaml:13:22: steps[3].fault: unknown fault "kil"; expected one of kill, restart, pause, resume, failover, stall-replication, clock, latency, partition, heal, flush',
    ],
    [
      'a lock kind the lock engine does not know',
      'kind: token',
      'kind: tokn',
      'race.yaml:5:15: lock.kind: unknown lock kind "tokn"; expected one of reentrant, fair, read, write, spin, fenced, token, redlock, spring, shedlock, python-redis-lock, bsm-redislock, redis-py',
    ],
    [
      'a group multi-lock, which a scenario cannot give values for',
      'kind: token',
      'kind: multi-lock',
      "race.yaml:5:15: lock.kind: a group multi-lock cannot be a scenario's lock: its values are the hashed names a Redisson client writes (take one with acquire --kind multi-lock --values ...)",
    ],
    ['a fencing mode', 'expect: safe }', 'expect: safe, resource: { fencing: none } }', 'race.yaml:16:69: variants.fixed.resource.fencing: unknown fencing mode "none"; expected one of off, strict, at-least'],
    ['a topology', 'topology: replicated', 'topology: replica', 'race.yaml:4:22: sandbox.topology: unknown topology "replica"; expected one of single, replicated, sentinel, redlock, cluster'],
    ['an acquire mode', 'lease: 300ms }', 'lease: 300ms, mode: setnx }', 'race.yaml:10:60: steps[0].mode: unknown acquire mode "setnx"; expected one of atomic, setnx-then-expire, resend-on-timeout'],
  ])('%s', (_what, from, to, message) => {
    expect(parseError(edit(from, to))).toBe(message);
  });

  it('a step naming a client that is not in clients', () => {
    expect(parseError(edit('client: B, do', 'client: C, do'))).toBe('race.yaml:12:26: steps[2].client: unknown client "C"; expected one of A, B');
  });

  it('only naming a variant that does not exist, as one name or in a list', () => {
    expect(parseError(edit('only: fixed', 'only: fixd'))).toBe('race.yaml:12:58: steps[2].only: unknown variant "fixd"; expected one of unsafe, fixed');
    expect(parseError(edit('only: fixed', 'only: [fixed, slow]'))).toBe('race.yaml:12:66: steps[2].only[1]: unknown variant "slow"; expected one of unsafe, fixed');
  });

  it('a lock kind on a client, an acquire step and a variant', () => {
    expect(parseError(edit('name: B,', 'name: B, kind: rw,'))).toContain('race.yaml:8:22: clients[1].kind: unknown lock kind "rw"; expected one of reentrant,');
    expect(parseError(edit('wait: 1s,', 'wait: 1s, kind: rw,'))).toContain('race.yaml:12:58: steps[2].kind: unknown lock kind "rw"');
    expect(parseError(edit('expect: safe }', 'expect: safe, lock: { kind: rw } }'))).toContain('race.yaml:16:62: variants.fixed.lock.kind: unknown lock kind "rw"');
  });

  it('violation kinds in expect', () => {
    expect(parseError(edit('[stale-write]', '[stale-writes]'))).toBe(
      'race.yaml:15:47: variants.unsafe.expect[0]: unknown violation kind "stale-writes"; expected safe or one of mutual-exclusion, stale-holder, stale-write, lost-update, deadlock, starvation',
    );
    expect(parseError(edit('expect: safe', 'expect: [safe]'))).toBe('race.yaml:16:43: variants.fixed.expect[0]: safe stands alone: write expect: safe');
    expect(parseError(edit('expect: safe', 'expect: []'))).toBe('race.yaml:16:42: variants.fixed.expect: expected at least one violation kind (write expect: safe for none)');
    expect(parseError(edit('[stale-write]', '[stale-write, stale-write]'))).toBe('race.yaml:15:60: variants.unsafe.expect[1]: "stale-write" is listed twice');
  });
});

describe('unknown keys (strict mappings: a typo is never ignored)', () => {
  it.each([
    ['top level, before the key it leaves missing', 'title: Lost', 'titel: Lost', `race.yaml:1:1: unknown key "titel"; expected one of ${TOP_KEYS}`],
    ['in a client', 'stop-on-lost: true', 'stop-on-lst: true', 'race.yaml:8:16: clients[1]: unknown key "stop-on-lst"; expected one of name, kind, reach, stop-on-lost'],
    ['an option of another step', 'for: 500ms', 'for: 500ms, lease: 1s', 'race.yaml:11:51: steps[1]: unknown key "lease" in a pause step; expected one of at, only, client, do, for'],
    ['in sandbox', 'topology: replicated', 'topology: replicated, fakeclock: true', 'race.yaml:4:34: sandbox: unknown key "fakeclock"; expected one of topology, nodes, fake-clock, config'],
    ['camelCase for kebab-case', 'stop-on-lost: true', 'stopOnLost: true', 'race.yaml:8:16: clients[1]: unknown key "stopOnLost"; expected one of name, kind, reach, stop-on-lost'],
    ['in a variant', 'fencing, expect: safe', 'fencing, expects: safe', 'race.yaml:16:34: variants.fixed: unknown key "expects"; expected one of description, expect, lock, resource, sandbox'],
    ['in a variant override', 'expect: safe }', 'expect: safe, lock: { kind: fenced, name: x } }', 'race.yaml:16:70: variants.fixed.lock: unknown key "name"; expected one of kind, key'],
    ['a node on failover', 'fault: kill, node: n1', 'fault: failover, node: n1', 'race.yaml:13:32: steps[3]: unknown key "node" in a failover fault; expected one of at, only, fault'],
    ['amnesia on kill', 'node: n1 }', 'node: n1, amnesia: true }', 'race.yaml:13:38: steps[3]: unknown key "amnesia" in a kill fault; expected one of at, only, fault, node'],
  ])('%s', (_what, from, to, message) => {
    expect(parseError(edit(from, to))).toBe(message);
  });
});

describe('missing and malformed values', () => {
  it('a missing required option points at its step', () => {
    expect(parseError(edit('for: 500ms', 'fr: 500ms'))).toBe(
      'race.yaml:11:39: steps[1]: unknown key "fr" in a pause step; expected one of at, only, client, do, for',
    );
    expect(parseError(edit('do: pause, for: 500ms', 'do: pause'))).toBe('race.yaml:11:5: steps[1].for: missing; expected a duration like 300ms or 1.5s');
    expect(parseError(edit('  - { at: 1s, fault: kill, node: n1 }\n', '  - { fault: kill, node: n1 }\n'))).toBe(
      'race.yaml:13:5: steps[3].at: missing; expected a duration like 300ms or 1.5s (or 0)',
    );
    expect(parseError(edit('title: Lost lock\n', ''))).toBe('race.yaml:1:1: title: missing; expected text');
  });

  it('durations need a unit and must be positive; at may be 0', () => {
    expect(parseError(edit('lease: 300ms', 'lease: 300'))).toBe('race.yaml:10:47: steps[0].lease: expected a duration like 300ms or 1.5s, got 300 without a unit (write 300ms or 300s)');
    expect(parseError(edit('lease: 300ms', 'lease: 0s'))).toBe('race.yaml:10:47: steps[0].lease: invalid duration "0s": must be greater than zero');
    expect(parseError(edit('lease: 300ms', 'lease: 5 secs'))).toBe(
      'race.yaml:10:47: steps[0].lease: invalid duration "5 secs": use a number with ms, s, m, h or d, or a compound (e.g. 500ms, 5s, 1m30s, 2h, 1d)',
    );
    expect(parseError(edit('lease: 300ms', 'lease:'))).toBe('race.yaml:10:40: steps[0].lease: expected a duration like 300ms or 1.5s, got an empty value');
    expect(parseError(edit('at: 20ms', 'at: 20'))).toBe('race.yaml:11:11: steps[1].at: expected a duration like 300ms or 1.5s (or 0), got 20 without a unit (write 20ms or 20s)');
    expect(parseError(edit('\nvariants:', '\nstarvation: 0ms\nvariants:'))).toBe('race.yaml:14:13: starvation: invalid duration "0ms": must be greater than zero');
  });

  it('values of the wrong type', () => {
    expect(parseError(edit('title: Lost lock', 'title: 42'))).toBe('race.yaml:1:8: title: expected text, got 42');
    expect(parseError(edit('stop-on-lost: true', 'stop-on-lost: yes'))).toBe('race.yaml:8:30: clients[1].stop-on-lost: expected true or false, got "yes"');
    expect(parseError(edit('topology: replicated }', 'topology: replicated, config: { appendonly: true } }'))).toBe(
      'race.yaml:4:56: sandbox.config.appendonly: expected text or a number (quote yes / no / true / false), got true',
    );
    expect(parseError(edit('for: 500ms }', 'for: 500ms }\n  - { at: 30ms, client: A, do: write, value: 1.5 }'))).toBe(
      'race.yaml:12:46: steps[2].value: expected a whole number, got 1.5',
    );
    expect(parseError(edit('  - A\n', '  - 7\n'))).toBe('race.yaml:7:5: clients[0]: expected a client name or a mapping with name, got 7');
    expect(parseError(edit('  - A\n', '  - 1A\n'))).toBe('race.yaml:7:5: clients[0]: invalid client name "1A": use a letter, then letters, digits, - or _');
  });

  it('empty lists and maps where one entry is needed', () => {
    expect(parseError(edit('clients:\n  - A\n  - { name: B, stop-on-lost: true }\n', 'clients: []\n'))).toBe('race.yaml:6:10: clients: expected at least one client');
    expect(parseError(edit('only: fixed', 'only: []'))).toBe('race.yaml:12:58: steps[2].only: expected at least one variant name (leave out only: for every variant)');
    const noVariants = `${BASE.slice(0, BASE.indexOf('variants:'))}variants: {}\n`;
    expect(parseError(noVariants)).toBe('race.yaml:14:11: variants: expected at least one variant (e.g. unsafe: and fixed:)');
    expect(parseError(edit('  unsafe:', '  1st:'))).toBe('race.yaml:15:3: variants: invalid variant name "1st": use a letter, then letters, digits, - or _');
  });

  it('a step that is not exactly one of client action, fault, note', () => {
    expect(parseError(edit('{ at: 1s, fault: kill, node: n1 }', '{ at: 1s }'))).toBe(
      'race.yaml:13:5: steps[3]: a step needs client + do (a client action), fault (a sandbox fault), wait (for an event) or note',
    );
    expect(parseError(edit('node: n1 }', 'node: n1, note: killed }'))).toBe(
      'race.yaml:13:5: steps[3]: a step is one of client + do (a client action), fault (a sandbox fault), wait (for an event) or note, not fault and note at once',
    );
    expect(parseError(edit('  - { at: 1s, fault: kill, node: n1 }', '  - kill n1 at 1s'))).toBe(
      'race.yaml:13:5: steps[3]: expected a step mapping like {at: 0ms, client: A, do: acquire}, got "kill n1 at 1s"',
    );
  });

  it('fault values', () => {
    expect(parseError(edit('fault: kill, node: n1', 'fault: clock, node: n1, value: 5s'))).toBe(
      `race.yaml:13:46: steps[3].value: invalid clock change "5s": use +10s / -2s to jump the node's clock or x2 to run it fast`,
    );
    expect(parseError(edit('fault: kill, node: n1', 'fault: latency, node: n1'))).toBe('race.yaml:13:5: steps[3].value: missing; expected a duration like 300ms or 1.5s');
  });

  it('option combinations that cannot work', () => {
    expect(parseError(edit('lease: 300ms }', 'lease: 300ms, watchdog-lease: 1s }'))).toBe(
      'race.yaml:10:70: steps[0].watchdog-lease: goes with a watchdog acquire (no lease:); drop one of lease and watchdog-lease',
    );
    expect(parseError(edit('lease: 300ms }', 'lease: 300ms, gap: 50ms }'))).toBe(
      'race.yaml:10:59: steps[0].gap: goes with mode: setnx-then-expire (the time between SETNX and EXPIRE)',
    );
    expect(parseError(edit('lease: 300ms }', 'lease: 300ms, mode: resend-on-timeout }'))).toBe(
      'race.yaml:10:60: steps[0].mode: resend-on-timeout needs timeout: <duration> (how long the client waits for a reply)',
    );
    expect(parseError(edit('for: 500ms }', 'for: 500ms }\n  - { at: 30ms, client: A, do: release, gap: 10ms }'))).toBe(
      'race.yaml:12:46: steps[2].gap: goes with mode: get-then-del (the time between GET and DEL)',
    );
  });

  it('seed entries', () => {
    expect(parseError(edit('\nsteps:', '\nseed: [{ strng: orders, value: x }]\nsteps:'))).toBe(
      'race.yaml:9:8: seed[0]: a seed entry needs string: <key> with value, or hash: <key> with fields',
    );
    expect(parseError(edit('\nsteps:', '\nseed: [{ hash: meta, fields: { a: 1 }, value: x }]\nsteps:'))).toBe(
      'race.yaml:9:40: seed[0]: unknown key "value" in a hash seed; expected one of hash, fields',
    );
  });
});

describe('nodes, clients and the topology', () => {
  it('a fault on a node the topology lacks', () => {
    expect(parseError(edit('node: n1', 'node: n4'))).toBe('race.yaml:13:34: steps[3].node: unknown node "n4"; topology replicated has n1, n2, n3, primary, replicas');
    expect(parseError(edit('node: n1', 'node: s1'))).toBe('race.yaml:13:34: steps[3].node: unknown node "s1"; topology replicated has n1, n2, n3, primary, replicas');
    const redlock = edit('topology: replicated', 'topology: redlock, nodes: 3');
    expect(parseError(edit('node: n1', 'node: n4', redlock))).toBe('race.yaml:13:34: steps[3].node: unknown node "n4"; topology redlock with 3 nodes has n1, n2, n3');
    expect(parseError(edit('node: n1', 'node: primary', redlock))).toBe(
      'race.yaml:13:34: steps[3].node: unknown node "primary"; topology redlock with 3 nodes has n1, n2, n3',
    );
  });

  it('verbs a sentinel has no use for', () => {
    const sentinel = edit('topology: replicated', 'topology: sentinel');
    expect(parseError(edit('fault: kill, node: n1', 'fault: clock, node: s2, value: +5s', sentinel))).toBe(
      'race.yaml:13:35: steps[3].node: clock applies to redis nodes, and s2 is a sentinel',
    );
    expect(parseError(edit('node: n1 }', 'node: s1, amnesia: true }', edit('fault: kill', 'fault: restart', sentinel)))).toBe(
      'race.yaml:13:50: steps[3].amnesia: a sentinel holds no keys: restart s1 without amnesia',
    );
  });

  it('failover, stall-replication and WAIT on a topology without replicas', () => {
    const single = edit('topology: replicated', 'topology: single');
    expect(parseError(edit('fault: kill, node: n1', 'fault: failover', single))).toBe(
      'race.yaml:13:22: steps[3].fault: failover needs a topology with replicas (replicated or sentinel); single has none',
    );
    expect(parseError(edit('fault: kill, node: n1', 'fault: stall-replication, node: n1', single))).toBe(
      'race.yaml:13:22: steps[3].fault: stall-replication needs a topology with replicas (replicated or sentinel); single has none',
    );
    expect(parseError(edit('fault: kill, node: n1', 'fault: stall-replication, node: primary'))).toBe(
      'race.yaml:13:47: steps[3].node: stall-replication acts on a replica (n2, n3), and primary is the primary',
    );
    expect(parseError(edit('lease: 300ms }', 'lease: 300ms, wait-replicas: 1 }', single))).toBe(
      'race.yaml:10:69: steps[0].wait-replicas: needs a topology with replicas (replicated or sentinel); single has none',
    );
  });

  it('reach and partition nodes that do not exist', () => {
    const redlock = edit('topology: replicated', 'topology: redlock, nodes: 3');
    expect(parseError(edit('stop-on-lost: true', 'reach: [n1, n5]', redlock))).toBe('race.yaml:8:28: clients[1].reach[1]: unknown node "n5"; topology redlock with 3 nodes has n1, n2, n3');
    expect(parseError(edit('for: 500ms }', 'for: 500ms }\n  - { at: 30ms, client: A, do: partition, nodes: [n9] }', redlock))).toBe(
      'race.yaml:12:51: steps[2].nodes[0]: unknown node "n9"; topology redlock with 3 nodes has n1, n2, n3',
    );
  });

  it('nodes: only with redlock, and within the sandbox limit', () => {
    expect(parseError(edit('topology: replicated', 'topology: replicated, nodes: 3'))).toBe(
      'race.yaml:4:41: sandbox.nodes: goes with topology: redlock (the number of independent primaries); topology replicated has a fixed set of nodes',
    );
    expect(parseError(edit('topology: replicated', 'topology: redlock, nodes: 16'))).toBe('race.yaml:4:38: sandbox.nodes: must be a whole number from 1 to 15');
  });

  it('duplicate client names, and a client named like a node', () => {
    expect(parseError(edit('name: B,', 'name: A,'))).toBe('race.yaml:8:5: clients[1]: duplicate client "A" (clients[0] has the same name)');
    expect(parseError(edit('  - A\n', '  - n2\n'))).toBe('race.yaml:7:5: clients[0]: client "n2" has the name of a timeline lane (a node or scenario); pick another');
  });
});

describe('YAML syntax', () => {
  it('reports where yaml noticed the syntax error', () => {
    // An unclosed [ is only noticed where the next line fails to continue it.
    expect(parseError(edit('summary: B takes', 'summary: [B takes'))).toBe(
      'race.yaml:3:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    );
    expect(parseError(edit('  - A\n', '\t- A\n'))).toMatch(/^race\.yaml:7:1: invalid YAML: /);
  });

  it('a key given twice, a second document, an alias without anchor', () => {
    expect(parseError(edit('narration:', 'title: Again\nnarration:'))).toBe('race.yaml:3:1: invalid YAML: key "title" appears twice in the same mapping');
    expect(parseError(`${BASE}---\ntitle: second\n`)).toBe(
      'race.yaml:17:1: invalid YAML: a scenario file holds one document; remove the second --- and what follows it, or split the file',
    );
    expect(parseError(edit('lease: 300ms', 'lease: *long'))).toBe('race.yaml:10:47: invalid YAML: alias *long has no anchor &long before it');
  });

  it('an empty file or one that is not a mapping', () => {
    expect(parseError('')).toBe(`race.yaml:1:1: expected a mapping (keys: ${TOP_KEYS}), got an empty value`);
    expect(parseError('- a\n- b\n')).toBe(`race.yaml:1:1: expected a mapping (keys: ${TOP_KEYS}), got a list`);
  });
});
