import { describe, expect, it } from 'vitest';
import { completionPoint, quoteWord, tokenize } from '../../../src/core/repl/tokenize.js';

const words = (line: string): string[] => {
  const result = tokenize(line);
  if (!result.ok) throw new Error(result.error);
  return result.tokens.map((t) => t.value);
};

describe('tokenize', () => {
  it.each([
    ['acquire orders --lease 5s', ['acquire', 'orders', '--lease', '5s']],
    ['  as   B   acquire k  ', ['as', 'B', 'acquire', 'k']],
    [`acquire 'my lock'`, ['acquire', 'my lock']],
    [`acquire "my \\"quoted\\" lock"`, ['acquire', 'my "quoted" lock']],
    [`acquire my\\ lock`, ['acquire', 'my lock']],
    [`acquire 'a'"b"c`, ['acquire', 'abc']],
    [`inspect ''`, ['inspect', '']],
    [`hold k -- sh -c 'echo $HOME'`, ['hold', 'k', '--', 'sh', '-c', 'echo $HOME']],
    [`acquire 'it'\\''s'`, ['acquire', "it's"]],
  ])('%s', (line, expected) => {
    expect(words(line)).toEqual(expected);
  });

  it('marks quoted words, so a quoted & is a word and a bare one is not', () => {
    const result = tokenize(`acquire k '&' &`);
    expect(result.ok && result.tokens.map((t) => [t.value, t.quoted])).toEqual([
      ['acquire', false],
      ['k', false],
      ['&', true],
      ['&', false],
    ]);
  });

  it.each([
    [`acquire 'orders`, /unbalanced single quote/],
    [`acquire "orders`, /unbalanced double quote/],
    [`acquire orders\\`, /ends with a backslash/],
  ])('%s is an error that names the problem', (line, message) => {
    const result = tokenize(line);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });
});

describe('completionPoint', () => {
  it('splits finished words from the word being typed', () => {
    expect(completionPoint('acquire --ki')).toEqual({ words: ['acquire'], partial: '--ki', partialStart: 8, openQuote: undefined });
    expect(completionPoint('acquire ')).toEqual({ words: ['acquire'], partial: '', partialStart: 8 });
    expect(completionPoint('')).toEqual({ words: [], partial: '', partialStart: 0 });
  });

  it('completes inside an open quote', () => {
    expect(completionPoint(`watch 'my lo`)).toMatchObject({ words: ['watch'], partial: 'my lo', partialStart: 6, openQuote: "'" });
  });
});

describe('quoteWord', () => {
  it('leaves plain keys alone and quotes the rest so they stay one word', () => {
    expect(quoteWord('orders:{eu}/1')).toBe('orders:{eu}/1');
    expect(quoteWord('my lock')).toBe(`'my lock'`);
    expect(words(`watch ${quoteWord(`it's here`)}`)).toEqual(['watch', `it's here`]);
  });
});
