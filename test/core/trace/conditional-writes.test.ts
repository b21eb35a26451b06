import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { decodeLines } from '../../../src/core/trace/decoder.js';
import type { MonitorLine } from '../../../src/core/trace/monitor-line.js';
import type { ServerCommands } from '../../../src/core/trace/server-commands.js';
import { conditionTokens } from '../../../src/core/trace/server-commands.js';
import { parseSetOptions } from '../../../src/core/trace/set-options.js';
import { A, at, B } from './monitor-stream.js';

// The conditional writes, decided from the value the trace last saw and from what the server has.
// MONITOR lists a command the server then rejects for its syntax, so the capability matters.

const has = (conditions: string[], deletes: string[]): ServerCommands => ({ setConditions: new Set(conditions), deletes: new Set(deletes) });
const REDIS_70 = has([], []);
const VALKEY_81 = has(['IFEQ'], []);
const VALKEY_90 = has(['IFEQ'], ['DELIFEQ']);
const REDIS_84 = has(['IFEQ', 'IFNE', 'IFDEQ', 'IFDNE'], ['DELEX']);

const taken = at(0, A, 'SET', 'lock', 'holder', 'NX', 'PX', '60000');
const decode = (commands: ServerCommands | undefined, ...lines: MonitorLine[]) => {
  const events = decodeLines(lines, { commands }).filter((e) => e.kind !== 'attempt');
  return { kinds: events.map((e) => `${e.kind} ${e.owner ?? ''} ${e.detail ?? ''}`.trim()), events, findings: checkEvents(events).map((f) => f.kind) };
};

describe('SET ... IFEQ', () => {
  it("the holder's IFEQ with its own value is a renewal with the new lease", () => {
    const { kinds, events, findings } = decode(VALKEY_81, taken, at(10, A, 'SET', 'lock', 'holder', 'IFEQ', 'holder', 'PX', '90000'));
    expect(kinds).toEqual(['acquired holder', 'renewed holder']);
    expect(events[1]).toMatchObject({ leaseMs: 90000 });
    expect(findings).toEqual([]);
  });

  it('an IFEQ that does not match the value writes nothing: no acquisition, no finding, the holder keeps it', () => {
    const { kinds, findings } = decode(VALKEY_81, taken, at(10, B, 'SET', 'lock', 'intruder', 'IFEQ', 'wrong-value', 'PX', '60000'), at(20, A, 'PEXPIRE', 'lock', '60000'));
    expect(kinds).toEqual(['acquired holder', 'raw  IFEQ did not match: nothing was written', 'renewed holder']);
    expect(findings).toEqual([]);
  });

  it("an IFEQ by another value that matched the holder's is a takeover: a silent-reacquire", () => {
    const { kinds, events, findings } = decode(VALKEY_81, taken, at(10, B, 'SET', 'lock', 'intruder', 'IFEQ', 'holder', 'PX', '60000'));
    expect(kinds).toEqual(['acquired holder', 'acquired intruder']);
    expect(events[1]).toMatchObject({ overwrite: true, holders: ['holder'] });
    expect(findings).toEqual(['silent-reacquire']);
  });

  it('the renewal form after the lease ran out finds the lock gone: a refused renewal, not a write', () => {
    const { kinds } = decode(VALKEY_81, at(0, A, 'SET', 'lock', 'holder', 'NX', 'PX', '100'), at(200, A, 'SET', 'lock', 'holder', 'IFEQ', 'holder', 'PX', '100'));
    expect(kinds).toEqual(['acquired holder', 'expired holder', 'renew-refused holder']);
  });

  it('a lock set before the trace began, or a log without the server: conditional, outcome unknown, no finding', () => {
    const before = decode(VALKEY_81, at(10, B, 'SET', 'lock', 'intruder', 'IFEQ', 'holder', 'PX', '60000'));
    expect(before.kinds).toEqual(['raw  conditional, outcome unknown']);
    const log = decode(undefined, taken, at(10, B, 'SET', 'lock', 'intruder', 'IFEQ', 'holder', 'PX', '60000'));
    expect(log.kinds).toEqual(['acquired holder', 'raw  conditional, outcome unknown']);
    expect([...before.findings, ...log.findings]).toEqual([]);
  });

  it("on a server without the option (Redis 7.0) it is a syntax error MONITOR lists: not a write", () => {
    const { kinds, findings } = decode(REDIS_70, taken, at(10, B, 'SET', 'lock', 'intruder', 'IFEQ', 'holder', 'PX', '60000'), at(20, A, 'PEXPIRE', 'lock', '60000'));
    expect(kinds).toEqual(['acquired holder', 'raw  error: the server has no SET IFEQ (a syntax error); nothing was written', 'renewed holder']);
    expect(findings).toEqual([]);
  });

  it("IFEQ's comparison value is not read as an option, whatever it spells", () => {
    expect(parseSetOptions(['IFEQ', 'NX', 'PX', '100'])).toEqual({ nx: false, xx: false, keepTtl: false, pxMs: 100, condition: { option: 'IFEQ', value: 'NX' } });
  });
});

describe('DELIFEQ and DELEX', () => {
  it('DELIFEQ (Valkey 9.0) by the holder is a release; with another value it is refused', () => {
    expect(decode(VALKEY_90, taken, at(10, B, 'DELIFEQ', 'lock', 'other'), at(20, A, 'DELIFEQ', 'lock', 'holder')).kinds).toEqual(['acquired holder', 'release-refused other', 'released holder']);
  });

  it('DELEX (Redis 8.4): IFEQ releases, IFNE removes someone else\'s lock, no condition is a DEL', () => {
    expect(decode(REDIS_84, taken, at(10, A, 'DELEX', 'lock', 'IFEQ', 'holder')).kinds).toEqual(['acquired holder', 'released holder']);
    const ifne = decode(REDIS_84, taken, at(10, B, 'DELEX', 'lock', 'IFNE', 'mine'));
    expect(ifne.kinds).toEqual(['acquired holder', 'deleted']);
    expect(ifne.findings).toEqual(['foreign-delete']);
    expect(decode(REDIS_84, taken, at(10, B, 'DELEX', 'lock', 'IFNE', 'holder')).kinds).toEqual(['acquired holder', 'raw  IFNE: nothing was deleted']);
    expect(decode(REDIS_84, taken, at(10, B, 'DELEX', 'lock')).kinds).toEqual(['acquired holder', 'deleted']);
  });

  it('where the server has not got them they are errors, never releases', () => {
    const { kinds, findings } = decode(VALKEY_81, taken, at(10, A, 'DELIFEQ', 'lock', 'holder'), at(20, A, 'DELEX', 'lock', 'IFEQ', 'holder'), at(30, A, 'PEXPIRE', 'lock', '60000'));
    expect(kinds).toEqual([
      'acquired holder',
      'raw  error: the server has no DELIFEQ; nothing was written',
      'raw  error: the server has no DELEX; nothing was written',
      'renewed holder',
    ]);
    expect(findings).toEqual([]);
  });
});

describe('other conditional SETs', () => {
  it('SET ... XX on a lock the trace knows is free writes nothing; SET ... NX GET is an acquisition', () => {
    const lapsed = decode(REDIS_70, at(0, A, 'SET', 'lock', 'holder', 'NX', 'PX', '100'), at(200, A, 'SET', 'lock', 'holder', 'XX', 'PX', '100'));
    expect(lapsed.kinds).toEqual(['acquired holder', 'expired holder', 'raw holder XX on a free lock: nothing was written']);
    expect(lapsed.findings).toEqual([]);
    expect(decode(REDIS_70, at(0, A, 'SET', 'lock', 'holder', 'NX', 'GET', 'PX', '100')).kinds).toEqual(['acquired holder']);
  });
});

describe('the server asked at start', () => {
  it('COMMAND DOCS SET: the IF... tokens of its argument tree, not the words of its history', () => {
    const docs = ['set', ['history', [['8.1.0', 'Added the `IFEQ` option.']], 'arguments', [['name', 'key', 'type', 'key'], ['name', 'condition', 'type', 'oneof', 'arguments', [['name', 'nx', 'type', 'pure-token', 'token', 'NX'], ['name', 'comparison-value', 'type', 'string', 'token', 'IFEQ']]]]]];
    expect([...conditionTokens(docs)]).toEqual(['IFEQ']);
    expect([...conditionTokens(['set', ['history', [['8.1.0', 'IFEQ']]]])]).toEqual([]);
  });
});
