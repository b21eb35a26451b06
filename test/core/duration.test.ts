import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/core/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    [' 10s ', 10_000],
    ['1m30s', 90_000],
    ['1h15m', 4_500_000],
    ['2d', 172_800_000],
    ['1d12h', 129_600_000],
    ['1h0m5s', 3_605_000],
    ['2s500ms', 2500],
    ['1.5m', 90_000],
  ])('%s -> %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['5', '5x', 's', '-1s', '0s', '5 s', '2 days', '1e3ms', '', '30s1m', '1m1m', '1m 30s', 'd', '1msm', '0m0s'])('rejects %j as a usage error', (text) => {
    expect(() => parseDuration(text, '--lease duration')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it('names the flag and shows valid forms', () => {
    expect(() => parseDuration('5x', '--lease duration')).toThrow('invalid --lease duration "5x": use a number with ms, s, m, h or d, or a compound (e.g. 500ms, 5s, 1m30s, 2h, 1d)');
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [4200, '4.2 s'],
    [185_000, '3 m 05 s'],
    [7_800_000, '2 h 10 m'],
    [-1100, '-1.1 s'],
  ])('%d -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
