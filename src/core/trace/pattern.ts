// The `[pattern]` of `trace`: the same glob Redis uses for SCAN MATCH and KEYS (* ? [abc] [^a]
// [a-z] and \ to escape), applied to lock names as they appear in the stream.

/** A predicate for lock names; every name when the pattern is undefined or `*`. */
export function globMatcher(pattern: string | undefined): (name: string) => boolean {
  if (pattern === undefined || pattern === '*') return () => true;
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]!);
    else if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        const body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
        re += `[${body.startsWith('^') ? `^${body.slice(1)}` : body}]`;
        i = close;
      }
    } else re += escapeRe(c);
  }
  const compiled = new RegExp(`${re}$`);
  return (name) => compiled.test(name);
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
