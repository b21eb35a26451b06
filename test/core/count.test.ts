// Issue 24, item 3: counts accepted hex, exponents, signs and 1e20 (Number() alone). One parser
// now: decimal digits only, within a stated range, else one usage line (exit 2).
import { describe, expect, it } from 'vitest';
import { parseCount } from '../../src/core/count.js';
import { ExitCode } from '../../src/core/exit-codes.js';
import { procsBounds, WORKER_BYTES } from '../../src/race/proc-limit.js';

const BOUNDS = { min: 1, max: 10_000 };

describe('parseCount', () => {
  it.each(['1', '8', '0008', '10000'])('takes %s', (text) => {
    expect(parseCount(text, '--clients', BOUNDS)).toBe(Number(text));
  });

  it.each([
    ['hex', '0x10'],
    ['an exponent', '1e3'],
    ['1e20', '1e20'],
    ['a plus sign', '+5'],
    ['a minus sign', '-5'],
    ['a fraction', '2.5'],
    ['blanks', ' 5 '],
    ['nothing', ''],
    ['Infinity', 'Infinity'],
    ['below the range', '0'],
    ['digits past any range', '99999999999999999999'],
  ])('refuses %s with one usage line', (_name, text) => {
    let thrown: unknown;
    try {
      parseCount(text, '--clients', BOUNDS);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ exitCode: ExitCode.usage, message: `invalid --clients "${text}": use a whole number from 1 to 10000` });
  });

  it('above the range says the top and why', () => {
    expect(() => parseCount('10001', '--clients', BOUNDS)).toThrow('invalid --clients "10001": at most 10000');
    expect(() => parseCount('9', '--procs', { min: 1, max: 8, why: '2 CPUs here, 4 workers each' })).toThrow('invalid --procs "9": at most 8 (2 CPUs here, 4 workers each)');
  });
});

describe('--procs bounds', () => {
  const GB = 1024 ** 3;
  it('is bound by the CPUs, or by free memory when that is smaller, and is never below 1', () => {
    expect(procsBounds(2, 16 * GB)).toMatchObject({ min: 1, max: 8, why: '2 CPUs here, 4 workers each' });
    expect(procsBounds(64, 10 * WORKER_BYTES)).toMatchObject({ max: 10, why: '640 MB of free memory here, 64 MB a worker' });
    expect(procsBounds(1, 0).max).toBe(1);
  });
});
