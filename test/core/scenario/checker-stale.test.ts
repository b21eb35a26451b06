import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../src/core/scenario/checker.js';
import type { History } from '../../../src/core/scenario/history.js';
import { history } from './history-builder.js';

const check = (h: History) => checkHistory(h, { starvationMs: 10_000 }).violations;
const of = (h: History, kind: string) => check(h).filter((v) => v.kind === kind);

describe('stale-holder', () => {
  it('an enter whose server read says the client no longer held the lock, naming who did', () => {
    const h = history('A', 'B')
      .ok('A', 'acquire', 0, 10, { leaseMs: 500 }).server(10, ['A'])
      .server(510, []).ok('B', 'acquire', 600, 610).server(610, ['B'])
      .ok('A', 'enter', 700, 720, { held: false })
      .end(1000).build();
    expect(of(h, 'stale-holder')).toEqual([
      {
        kind: 'stale-holder',
        clients: ['A', 'B'],
        from: 700,
        to: 720,
        message: 'A entered the critical section at 0.72 s while the server said B held the lock',
      },
    ]);
  });

  it('an accepted write or increment without the lock; the message says nobody held it when the server listed no one', () => {
    const h = history('A')
      .ok('A', 'write', 100, 110, { value: 1, token: 33, accepted: true, held: false })
      .ok('A', 'incr', 200, 250, { read: 0, value: 1, held: false })
      .end(300, 1).build();
    expect(of(h, 'stale-holder').map((v) => [v.clients, v.from, v.to, v.message])).toEqual([
      [['A'], 100, 110, "A's write (token 33) was accepted at 0.11 s while the server no longer had A as holder"],
      [['A'], 200, 250, "A's increment was accepted at 0.25 s while the server no longer had A as holder"],
    ]);
  });

  it('a rejected write is fencing working, not a violation', () => {
    const h = history('A').ok('A', 'write', 100, 110, { token: 33, accepted: false, held: false }).end(200).build();
    expect(check(h)).toEqual([]);
  });

  it('held: true, no held field, or a failed enter are not violations', () => {
    const h = history('A', 'B')
      .ok('A', 'enter', 0, 0, { held: true }).ok('A', 'leave', 50, 50)
      .ok('B', 'write', 100, 110, { accepted: true })
      .fail('B', 'enter', 200, 210, { held: false })
      .end(300).build();
    expect(check(h)).toEqual([]);
  });

  it('reads the latest server state of every node (Redlock): holders listed on any node are named', () => {
    const h = history('A', 'B', 'C')
      .server(0, ['A'], 'n1').server(0, ['A'], 'n2')
      .server(100, ['C'], 'n1').server(150, ['B'], 'n2')
      .ok('A', 'enter', 200, 200, { held: false })
      .end(300).build();
    expect(of(h, 'stale-holder')[0]?.clients).toEqual(['A', 'B', 'C']);
  });
});

describe('stale-write', () => {
  // Kleppmann's example: A gets 33, pauses past its lease, B gets 34 and writes, A wakes and writes.
  const kleppmann = (accepted: boolean) =>
    history('A', 'B')
      .ok('A', 'acquire', 0, 10, { token: 33, leaseMs: 300 })
      .ok('A', 'pause', 20, 700)
      .ok('B', 'acquire', 400, 410, { token: 34 })
      .ok('B', 'write', 500, 510, { token: 34, value: 2, accepted: true })
      .ok('A', 'write', 710, 720, { token: 33, value: 1, accepted })
      .end(1000).build();

  it("finds the older holder's write landing after the newer holder's", () => {
    expect(of(kleppmann(true), 'stale-write')).toEqual([
      {
        kind: 'stale-write',
        clients: ['A', 'B'],
        from: 510,
        to: 720,
        message: "A's write (token 33) overwrote B's newer write (token 34) at 0.72 s",
      },
    ]);
  });

  it('the same write rejected by the fenced register is safe', () => {
    expect(check(kleppmann(false))).toEqual([]);
  });

  it('writes in holder order are safe, several per epoch included', () => {
    const h = history('A', 'B')
      .ok('A', 'acquire', 0, 0).ok('A', 'write', 10, 20).ok('A', 'write', 30, 40).ok('A', 'release', 50, 60)
      .ok('B', 'acquire', 70, 70).ok('B', 'write', 80, 90).ok('B', 'write', 100, 110)
      .end(200).build();
    expect(check(h)).toEqual([]);
  });

  it('epochs follow acquisition order, not names: a re-acquiring client is newer again', () => {
    const h = history('A', 'B')
      .ok('A', 'acquire', 0, 0).ok('B', 'acquire', 100, 100).ok('A', 'acquire', 200, 200)
      .ok('A', 'write', 300, 310).ok('B', 'write', 400, 410)
      .end(500).build();
    expect(of(h, 'stale-write').map((v) => [v.clients, v.from, v.to, v.message])).toEqual([
      [['B', 'A'], 310, 410, "B's write overwrote A's newer write at 0.41 s"],
    ]);
  });

  it('every stale write counts, each against the newest accepted write', () => {
    const h = history('A', 'B', 'C')
      .ok('A', 'acquire', 0, 0).ok('B', 'acquire', 100, 100).ok('C', 'acquire', 200, 200)
      .ok('C', 'write', 300, 310).ok('B', 'write', 400, 410).ok('A', 'write', 500, 510)
      .end(600).build();
    expect(of(h, 'stale-write').map((v) => [v.clients, v.from, v.to])).toEqual([
      [['B', 'C'], 310, 410],
      [['A', 'C'], 310, 510],
    ]);
  });

  it('a write with no acquire before it is never compared', () => {
    const before = history('A', 'B').ok('A', 'write', 0, 10).ok('B', 'acquire', 20, 20).ok('B', 'write', 30, 40).end(100).build();
    expect(check(before)).toEqual([]);
    const after = history('A', 'B').ok('B', 'acquire', 0, 0).ok('B', 'write', 10, 20).ok('A', 'write', 30, 40).end(100).build();
    expect(check(after)).toEqual([]);
  });

  it('a failed write or acquire takes no part', () => {
    const h = history('A', 'B')
      .ok('A', 'acquire', 0, 0).ok('B', 'acquire', 100, 100).fail('A', 'acquire', 150, 160)
      .fail('B', 'write', 200, 210).ok('A', 'write', 300, 310)
      .end(400).build();
    expect(check(h)).toEqual([]);
  });
});
