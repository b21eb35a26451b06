// The runtime value of string literals in a library's source, as its compiler or interpreter
// builds them: Java `"a " + "b"` (and text blocks), JavaScript/TypeScript quotes and template
// literals joined by `+`, Go interpreted and raw strings joined by `+`, Python quotes and triple
// quotes joined by `+` or by sitting next to each other. A Redis client hashes exactly that value
// for EVALSHA, so one wrong escape is one wrong digest: every escape a language has is decoded
// here, and a chain with anything but literals in it (a variable, `${...}`) is reported as dynamic.

export type SourceLanguage = 'java' | 'js' | 'go' | 'python';

/** One chain of literals joined into one string value. */
export interface LiteralChain {
  readonly value: string;
  /** 1-based line of the first literal. */
  readonly line: number;
  /** Offset of the first literal in the text. */
  readonly offset: number;
  /** Something other than a literal was joined to it (a variable, an interpolation): its value is not known. */
  readonly dynamic: boolean;
}

interface Literal {
  readonly value: string;
  readonly start: number;
  readonly end: number;
  readonly dynamic: boolean;
}

const LINE_COMMENT: Record<SourceLanguage, string> = { java: '//', js: '//', go: '//', python: '#' };

/** Every literal chain in `text`, in order. */
export function literalChains(text: string, lang: SourceLanguage): LiteralChain[] {
  const chains: LiteralChain[] = [];
  let i = 0;
  let joinedBefore = false;
  // Python joins adjacent literals across lines only inside brackets.
  let depth = 0;
  while (i < text.length) {
    const skipped = skipTrivia(text, i, lang);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    const first = readLiteral(text, i, lang);
    if (!first) {
      // A `+` right before a chain joins it to something that is not a literal.
      const c = text[i]!;
      joinedBefore = c === '+';
      if ('([{'.includes(c)) depth += 1;
      else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
      i += 1;
      continue;
    }
    let value = first.value;
    let dynamic = first.dynamic || joinedBefore;
    let end = first.end;
    for (;;) {
      let j = skipAllTrivia(text, end, lang);
      const plus = text[j] === '+';
      if (plus) j = skipAllTrivia(text, j + 1, lang);
      const next = readLiteral(text, j, lang);
      // Python joins adjacent literals without `+`; the other languages need it.
      const adjacent = lang === 'python' && (depth > 0 || !text.slice(end, j).includes('\n'));
      if (next && (plus || adjacent)) {
        value += next.value;
        dynamic ||= next.dynamic;
        end = next.end;
        continue;
      }
      if (plus) dynamic = true;
      break;
    }
    chains.push({ value, line: lineOf(text, first.start), offset: first.start, dynamic });
    joinedBefore = false;
    i = end;
  }
  return chains;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) line += 1;
  return line;
}

/** Past one comment or run of whitespace at `i` (or `i` itself when there is none). */
function skipTrivia(text: string, i: number, lang: SourceLanguage): number {
  if (/\s/.test(text[i] ?? '')) return i + 1;
  // A character or rune literal can hold a quote: read past it, it is no string.
  if (text[i] === "'" && (lang === 'java' || lang === 'go')) {
    let k = i + 1;
    while (k < text.length && text[k] !== "'") k += text[k] === '\\' ? 2 : 1;
    return k + 1;
  }
  if (text.startsWith(LINE_COMMENT[lang], i)) {
    const nl = text.indexOf('\n', i);
    return nl === -1 ? text.length : nl;
  }
  if (lang !== 'python' && text.startsWith('/*', i)) {
    const close = text.indexOf('*/', i + 2);
    return close === -1 ? text.length : close + 2;
  }
  return i;
}

function skipAllTrivia(text: string, i: number, lang: SourceLanguage): number {
  for (let next = skipTrivia(text, i, lang); next !== i; next = skipTrivia(text, i, lang)) i = next;
  return i;
}

/** The literal starting at `i`, or undefined. */
function readLiteral(text: string, i: number, lang: SourceLanguage): Literal | undefined {
  const c = text[i];
  if (lang === 'python') return readPython(text, i);
  if (c === '"' && lang === 'java' && text.startsWith('"""', i)) return readJavaTextBlock(text, i);
  if (c === '"') return readQuoted(text, i, '"', lang);
  if (c === "'" && lang === 'js') return readQuoted(text, i, "'", lang);
  if (c === '`' && lang === 'js') return readTemplate(text, i);
  if (c === '`' && lang === 'go') return readGoRaw(text, i);
  return undefined;
}

function readQuoted(text: string, i: number, quote: string, lang: SourceLanguage): Literal {
  let value = '';
  let k = i + 1;
  while (k < text.length && text[k] !== quote) {
    if (text[k] === '\\') {
      const [decoded, used] = decodeEscape(text, k, lang);
      value += decoded;
      k += used;
    } else value += text[k++];
  }
  return { value, start: i, end: k + 1, dynamic: false };
}

function readTemplate(text: string, i: number): Literal {
  let value = '';
  let dynamic = false;
  let k = i + 1;
  while (k < text.length && text[k] !== '`') {
    if (text[k] === '\\') {
      const [decoded, used] = decodeEscape(text, k, 'js');
      value += decoded;
      k += used;
    } else if (text.startsWith('${', k)) {
      dynamic = true;
      k = text.indexOf('}', k) + 1;
    } else value += text[k++];
  }
  // A template's line breaks are always LF, whatever the file's.
  return { value: value.replace(/\r\n?/g, '\n'), start: i, end: k + 1, dynamic };
}

function readGoRaw(text: string, i: number): Literal {
  const close = text.indexOf('`', i + 1);
  // Go drops carriage returns from raw strings.
  return { value: text.slice(i + 1, close).replace(/\r/g, ''), start: i, end: close + 1, dynamic: false };
}

/** A Java text block: the opening line dropped, common indentation and trailing blanks stripped. */
function readJavaTextBlock(text: string, i: number): Literal {
  const bodyStart = text.indexOf('\n', i + 3) + 1;
  const close = text.indexOf('"""', bodyStart);
  const lines = text.slice(bodyStart, close).split('\n');
  const indents = lines
    .filter((l, n) => l.trim() !== '' || n === lines.length - 1)
    .map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = Math.min(...indents);
  const raw = lines.map((l) => l.slice(cut).replace(/[ \t]+$/, '')).join('\n');
  let value = '';
  for (let k = 0; k < raw.length; ) {
    if (raw[k] === '\\' && raw[k + 1] === '\n') k += 2;
    else if (raw[k] === '\\') {
      const [decoded, used] = decodeEscape(raw, k, 'java');
      value += decoded;
      k += used;
    } else value += raw[k++];
  }
  return { value, start: i, end: close + 3, dynamic: false };
}

const PY_PREFIX = /^([rRbBuUfF]{0,2})('''|"""|'|")/;

function readPython(text: string, i: number): Literal | undefined {
  // A prefix letter only starts a literal where no name runs into it.
  if (i > 0 && /[\w]/.test(text[i - 1]!)) return undefined;
  const m = PY_PREFIX.exec(text.slice(i, i + 5));
  if (!m) return undefined;
  const [, prefix = '', quote = ''] = m;
  const raw = /r/i.test(prefix);
  let k = i + m[0].length;
  let value = '';
  while (k < text.length && !text.startsWith(quote, k)) {
    if (text[k] === '\\' && raw) {
      value += text.slice(k, k + 2);
      k += 2;
    } else if (text[k] === '\\') {
      const [decoded, used] = decodeEscape(text, k, 'python');
      value += decoded;
      k += used;
    } else value += text[k++];
  }
  return { value, start: i, end: k + quote.length, dynamic: /f/i.test(prefix) && value.includes('{') };
}

const SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', a: '\u0007', s: ' ' };

/** One escape sequence at `k` (a backslash): its value and how many characters it spans. */
function decodeEscape(text: string, k: number, lang: SourceLanguage): [string, number] {
  const c = text[k + 1] ?? '';
  // A backslash before a line break continues the line (JavaScript, Python).
  if (c === '\n' && (lang === 'js' || lang === 'python')) return ['', 2];
  if (c === '\r' && (lang === 'js' || lang === 'python')) return ['', text[k + 2] === '\n' ? 3 : 2];
  const known = lang === 'java' ? 'ntrbfs' : lang === 'go' ? 'ntrbfva' : lang === 'js' ? 'ntrbfv' : 'ntrbfva';
  if (known.includes(c)) return [SIMPLE[c]!, 2];
  if (c === 'x' && lang !== 'java') return [String.fromCharCode(Number.parseInt(text.slice(k + 2, k + 4), 16)), 4];
  if (c === 'u' && text[k + 2] === '{' && lang === 'js') {
    const close = text.indexOf('}', k);
    return [String.fromCodePoint(Number.parseInt(text.slice(k + 3, close), 16)), close - k + 1];
  }
  if (c === 'u' && lang !== 'python') {
    // Java allows `\uuuu0041`; the others one `u`.
    let u = k + 1;
    while (text[u] === 'u') u += 1;
    return [String.fromCharCode(Number.parseInt(text.slice(u, u + 4), 16)), u + 4 - k];
  }
  const octal = /^[0-7]{1,3}/.exec(text.slice(k + 1, k + 4));
  if (octal && !(lang === 'js' && octal[0] === '0'))
    return [String.fromCharCode(Number.parseInt(octal[0], 8)), 1 + octal[0].length];
  if (c === '0' && lang === 'js') return ['\u0000', 2];
  if ('\\\'"`'.includes(c) && c !== '') return [c, 2];
  // Python keeps an unknown escape as written, JavaScript drops the backslash; Java and Go reject it.
  if (lang === 'python') return [`\\${c}`, 2];
  if (lang === 'js') return [c, 2];
  throw new Error(`unknown escape \\${c} at offset ${k}`);
}
