import { describe, expect, it } from 'vitest';
import { DATA_KEYS_KEPT } from '../../../src/core/trace/lock-model.js';
import { A, at, B, outcomes, rows } from './monitor-stream.js';

// A lock named after a key the application keeps data in: a plain SET without TTL wrote the key,
// so a SET NX on it later cannot have succeeded, whatever MONITOR leaves unsaid about the reply.

const JSON_CART = '{"items":[{"sku":"A-113","qty":2}]}';

describe('trace decoder: a lock asked for on a key that holds application data', () => {
  it('a SET NX after a plain SET without TTL is refused, marked as data, with no holder', () => {
    const events = outcomes([at(0, A, 'SET', 'cart:42', JSON_CART), at(10, B, 'SET', 'cart:42', 'tokB', 'NX', 'PX', '1000')]);
    expect(rows(events)).toEqual([['refused', 'cart:42', 'tokB', 10]]);
    expect(events[0]).toMatchObject({ owner: 'tokB', holders: [], data: true, library: 'token' });
  });

  it('data that goes away (a TTL, a DEL, an EXPIRE) leaves the key free for the lock', () => {
    const free = (...first: ReturnType<typeof at>[]) => rows(outcomes([...first, at(50, B, 'SET', 'k', 'tokB', 'NX', 'PX', '1000')])).map((r) => r[0]);
    expect(free(at(0, A, 'SET', 'k', 'v', 'EX', '10'))).toEqual(['acquired']);
    expect(free(at(0, A, 'SET', 'k', 'v'), at(10, A, 'DEL', 'k'))).toEqual(['acquired']);
    expect(free(at(0, A, 'SET', 'k', 'v'), at(10, A, 'PEXPIRE', 'k', '5'))).toEqual(['acquired']);
    expect(free(at(0, A, 'SET', 'k', 'v'))).toEqual(['refused']);
  });

  it(`remembers at most ${DATA_KEYS_KEPT} data keys, forgetting the oldest first`, () => {
    const writes = Array.from({ length: DATA_KEYS_KEPT + 1 }, (_, i) => at(i, A, 'SET', `data:${i}`, 'v'));
    const asked = (i: number) => rows(outcomes([...writes, at(5000, B, 'SET', `data:${i}`, 'tokB', 'NX', 'PX', '1000')]))[0]![0];
    expect([asked(0), asked(1), asked(DATA_KEYS_KEPT)]).toEqual(['acquired', 'refused', 'refused']);
  });
});
