import { describe, expect, it } from 'vitest';
import { counterNote } from '../../src/commands/race/output.js';

// The race's counter beside the increments its clients saw complete.
describe('race summary: the counter line', () => {
  it('equal: none lost; below: that many lost', () => {
    expect(counterNote(92, 92)).toBe('(none lost)');
    expect(counterNote(90, 92)).toBe('(2 lost)');
  });

  it('above: nothing lost, an increment landed whose client died before the reply (never "-1 lost")', () => {
    expect(counterNote(93, 92)).toBe('(none lost; 1 more landed without its reply: a client crashed mid-increment)');
    expect(counterNote(94, 92)).toBe('(none lost; 2 more landed without their reply: a client crashed mid-increment)');
  });
});
