import { describe, expect, it } from 'vitest';
import { literalChains, type SourceLanguage } from '../../scripts/digests/literals.js';

// The runtime value of a script literal, byte for byte: the digest a client sends is the SHA1 of
// exactly this string. Sources written for the test in each language's manner.

const value = (text: string, lang: SourceLanguage): string[] => literalChains(text, lang).map((c) => c.value);

describe('literalChains', () => {
  it.each([
    [
      'java: "..." + "..." across lines and comments, escapes decoded',
      'java',
      'eval(cmd, "a \\"b\\" " + // why\n   "c\\n" +\n /* x */ "\\u0041\\t", keys);',
      ['a "b" c\nA\t'],
    ],
    ['java: a char literal holding a quote is not a string', 'java', 'char q = \'"\'; String s = "x";', ['x']],
    [
      'java: a text block loses its indentation and opening line',
      'java',
      'String s = """\n      a\n        b\n      """;',
      ['a\n  b\n'],
    ],
    [
      'js: a template literal keeps its lines; \\` and \\\\ decoded',
      'js',
      'const S = `\n  if x then\\n\\`y\\\\\n`;',
      ['\n  if x then\n`y\\\n'],
    ],
    ['js: quotes joined by +, a line continuation dropped', 'js', 'const s = \'a\' + "b\\\nc";', ['abc']],
    [
      'go: a raw string is taken as written, backslashes and all',
      'go',
      'var s = redis.NewScript(1, `a\\n "b"`)',
      ['a\\n "b"'],
    ],
    ['go: interpreted strings joined by +', 'go', 'x := "a\\t" + "b"', ['a\tb']],
    [
      'python: triple quotes, adjacent literals in brackets, unknown escapes kept',
      'python',
      'S = """\n  a\\d\n"""\nT = ("x"\n     \'y\')\n',
      ['\n  a\\d\n', 'xy'],
    ],
    ['python: literals on separate lines outside brackets stay apart', 'python', "A = 'x'\nB = 'y'\n", ['x', 'y']],
  ] as const)('%s', (_what, lang, text, expected) => {
    expect(value(text, lang)).toEqual(expected);
  });

  it('a chain joined to anything but a literal is dynamic (its value is not known before run time)', () => {
    const chains = literalChains('eval("redis.call(\'del\', " + key + ")"); eval("ok");', 'java');
    expect(chains.map((c) => [c.value, c.dynamic])).toEqual([
      ["redis.call('del', ", true],
      [')', true],
      ['ok', false],
    ]);
    const interpolated = ['const s = `a $', '{b} c`;'].join('');
    expect(literalChains(interpolated, 'js').map((c) => c.dynamic)).toEqual([true]);
  });
});
