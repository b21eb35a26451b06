// Splits a REPL line into argv the way a POSIX shell would for the cases people type: spaces
// separate words, '...' is literal, "..." allows \" \\ escapes, a backslash outside quotes escapes
// the next character. No globbing, variables or pipes: the words go straight to run(argv).

export interface Token {
  readonly value: string;
  /** Any part of it was quoted or escaped: a quoted `&` is a word, not "run in the background". */
  readonly quoted: boolean;
  /** Offset of its first character in the line. */
  readonly start: number;
}

export type Tokenized =
  | { readonly ok: true; readonly tokens: readonly Token[] }
  | { readonly ok: false; readonly error: string; readonly tokens: readonly Token[]; readonly open: '"' | "'" | '\\' };

/** Tokenizes a whole line; an unbalanced quote (or a trailing backslash) is an error that still returns the words so far. */
export function tokenize(line: string): Tokenized {
  const tokens: Token[] = [];
  let value = '';
  let quoted = false;
  let start = -1;
  let quote: '"' | "'" | undefined;
  const push = (): void => {
    if (start >= 0) tokens.push({ value, quoted, start });
    value = '';
    quoted = false;
    start = -1;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else value += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) value += line[++i]!;
      else value += c;
      continue;
    }
    if (c === ' ' || c === '\t') {
      push();
      continue;
    }
    if (start < 0) start = i;
    if (c === "'" || c === '"') {
      quote = c;
      quoted = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) {
        push();
        return { ok: false, error: 'the line ends with a backslash: nothing to escape', tokens, open: '\\' };
      }
      value += line[++i]!;
      quoted = true;
    } else value += c;
  }
  if (quote) {
    push();
    return { ok: false, error: `unbalanced ${quote === '"' ? 'double' : 'single'} quote: close it with ${quote}`, tokens, open: quote };
  }
  push();
  return { ok: true, tokens };
}

/** Where completion happens: the finished words before the cursor and the word being typed. */
export interface CompletionPoint {
  readonly words: readonly string[];
  readonly partial: string;
  /** Offset in the line where the word being typed starts (the cursor when it is empty). */
  readonly partialStart: number;
  /** The word being typed opened a quote: a completion must close it. */
  readonly openQuote?: '"' | "'" | undefined;
}

/** Splits the text before the cursor into finished words and the word under completion. */
export function completionPoint(beforeCursor: string): CompletionPoint {
  const result = tokenize(beforeCursor);
  const tokens = [...result.tokens];
  const endsInSpace = /[ \t]$/.test(beforeCursor) && (result.ok || result.open === '\\');
  if (endsInSpace || tokens.length === 0) {
    return { words: tokens.map((t) => t.value), partial: '', partialStart: beforeCursor.length };
  }
  const last = tokens.pop()!;
  const openQuote = !result.ok && result.open !== '\\' ? result.open : undefined;
  return { words: tokens.map((t) => t.value), partial: last.value, partialStart: last.start, openQuote };
}

/** Quotes a word for the line only when it needs it, so completed keys with spaces stay one word. */
export function quoteWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./{}-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
