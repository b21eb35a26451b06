import { describe, expect, it } from 'vitest';
import { safeJson, safeLine, safeStrings, safeText } from '../../src/core/terminal-text.js';

const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('the terminal output boundary', () => {
  it.each([
    ['an OSC title change', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
    ['clear screen', '\x1b[2J', '\\x1b[2J'],
    ['a colour', '\x1b[31mred', '\\x1b[31mred'],
    ['a C1 CSI', '\x9b31m', '\\x9b31m'],
    ['a right-to-left override', 'evil\u202egnp.exe', 'evil\\u202egnp.exe'],
    ['bidi isolates and marks', '\u2066a\u2069\u200f\u061c', '\\u2066a\\u2069\\u200f\\u061c'],
    ['newline, tab, CR, NUL, DEL', 'a\nb\tc\rd\0e\x7f', 'a\\nb\\tc\\rd\\x00e\\x7f'],
    ['plain text and non-Latin letters', 'orders:{42} заказ 注文', 'orders:{42} заказ 注文'],
  ])('safeText: %s', (_name, input, shown) => {
    expect(safeText(input)).toBe(shown);
    expect(safeText(input)).not.toMatch(RAW);
  });

  it('safeLine keeps layout (newline, tab) and our colours, escapes every other control', () => {
    expect(safeLine('\x1b[32mok\x1b[39m\tnext\nline')).toBe('\x1b[32mok\x1b[39m\tnext\nline');
    expect(safeLine('held by \x1b]0;t\x07 \x1b[2J \x9b \u202e \r')).toBe('held by \\x1b]0;t\\x07 \\x1b[2J \\x9b \\u202e \\r');
  });

  it('safeJson writes what JSON.stringify leaves raw as \\u escapes, and stays valid JSON', () => {
    const value = { holder: 'a\x9bb\u202ec\u2028d\x1b' };
    const json = safeJson(JSON.stringify(value));
    expect(json).not.toMatch(RAW);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('safeStrings escapes every string of a view and keeps its shape', () => {
    const view = { key: 'k\x1b', holders: [{ owner: '\u202eo', count: 2 }], ttlMs: -1, warning: undefined };
    expect(safeStrings(view)).toEqual({ key: 'k\\x1b', holders: [{ owner: '\\u202eo', count: 2 }], ttlMs: -1, warning: undefined });
  });
});

// Issue 24, item 3: invisible format characters (zero-width, soft hyphen, BOM, tags) were printed raw.
describe('format characters (Unicode Cf) at the boundary', () => {
  it.each([
    ['a zero-width space', 'ord\u200bers', 'ord\\u200bers'],
    ['zero-width joiners', 'a\u200cb\u200dc', 'a\\u200cb\\u200dc'],
    ['a soft hyphen', 'or\u00adders', 'or\\xadders'],
    ['a byte order mark', '\ufefforders', '\\ufefforders'],
    ['a word joiner', 'a\u2060b', 'a\\u2060b'],
    ['a tag character past U+FFFF', 'a\u{e0041}b', 'a\\u{e0041}b'],
  ])('safeText and safeLine escape %s', (_name, input, shown) => {
    expect(safeText(input)).toBe(shown);
    expect(safeLine(input)).toBe(shown);
  });

  it('safeJson writes them as \\u escapes and stays valid JSON', () => {
    const value = { key: 'a\u200bb\u{e0041}c' };
    const json = safeJson(JSON.stringify(value));
    expect(json).toBe('{"key":"a\\u200bb\\udb40\\udc41c"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
