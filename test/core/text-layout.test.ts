import { describe, expect, it } from 'vitest';
import { displayWidth, formatColumns, reflow, truncateToWidth, widthOf, wrapItems, wrapLine, wrapText } from '../../src/core/text-layout.js';

/** Every word of `text` appears whole on some line: nothing was broken inside a word. */
function wordsKept(text: string, lines: readonly string[]): void {
  const onLines = new Set(lines.flatMap((l) => l.trim().split(/\s+/)));
  for (const word of text.split(/\s+/).filter((w) => w !== '')) expect(onLines, `"${word}" was split`).toContain(word);
}

describe('display width', () => {
  it('counts a CJK character as two columns and colour codes as none', () => {
    expect(displayWidth('注文')).toBe(4);
    expect(displayWidth('\u001b[31mred\u001b[39m')).toBe(3);
  });

  it('the width of a terminal, 80 for a pipe or an unknown width', () => {
    expect(widthOf({ isTTY: true, columns: 120 })).toBe(120);
    expect(widthOf({ isTTY: false, columns: 120 })).toBe(80);
    expect(widthOf({ isTTY: true })).toBe(80);
  });

  it('truncateToWidth cuts by display width: a key loses its middle, other cells their end', () => {
    expect(truncateToWidth('orders:2024:customer-42', 12, 'middle')).toBe('orders…er-42');
    expect(displayWidth(truncateToWidth('注文注文注文注文', 7))).toBeLessThanOrEqual(7);
    expect(truncateToWidth('short', 12)).toBe('short');
  });

  it('truncateToWidth never cuts inside an escaped character, at any width, either end, coloured or not', () => {
    // What the output boundary writes for ESC, a bidi override, a newline, and quoting's backslash.
    const key = '"orders:\\x1b]0;pwned\\x07:\\u202e:eu\\n\\\\x:lock"';
    const whole = /\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[nrt\\"])/g;
    const colour = (t: string) => `\u001b[36m${t}\u001b[39m`;
    for (const text of [key, colour(key)]) {
      for (let width = 1; width < displayWidth(text); width++) {
        for (const cut of ['end', 'middle'] as const) {
          const out = truncateToWidth(text, width, cut);
          expect(displayWidth(out)).toBeLessThanOrEqual(width);
          // Whole escapes removed, no backslash is left: none was cut off from its escape.
          expect(out.replace(/\u001b\[[0-9;]*m/g, '').replace(whole, ''), `${cut} at ${width}: ${out}`).not.toContain('\\');
        }
      }
    }
    // The cut moves to the escape's edge: `\x1b` is dropped whole from the head, `\u202e` from the tail.
    expect(truncateToWidth(key, 11, 'end')).toBe('"orders:…');
    expect(truncateToWidth(key, 22, 'middle')).toBe('"orders:…eu\\n\\\\x:lock"');
    expect(truncateToWidth(key, 37, 'middle')).toBe('"orders:\\x1b]0;pwn…:eu\\n\\\\x:lock"');
    // Where a cut falls on an edge, nothing moves.
    expect(truncateToWidth(key, 24, 'middle')).toBe('"orders:\\x1b…\\n\\\\x:lock"');
  });
});

describe('formatColumns', () => {
  it('aligns the next column after a CJK key as after an ascii one', () => {
    const lines = formatColumns([
      ['KEY', 'KIND'],
      ['orders', 'fair'],
      ['注文', 'reentrant'],
    ]);
    expect(lines).toEqual(['KEY     KIND', 'orders  fair', '注文    reentrant']);
    const kindColumn = lines.map((l) => displayWidth(l.slice(0, l.search(/(fair|reentrant|KIND)$/))));
    expect(new Set(kindColumn).size).toBe(1);
  });

  it('with a width, shrinkable columns give up columns (the furthest above its minimum first); without one nothing is cut', () => {
    const rows = [
      ['KEY', 'HOLDER', 'TTL'],
      ['a-very-long-key-name-for-orders', 'holder-1234567890-abcdef', '4.2 s'],
    ];
    const layout = [{ min: 8, cut: 'middle' as const }, { min: 10 }];
    const cut = formatColumns(rows, { width: 40, columns: layout });
    expect(Math.max(...cut.map(displayWidth))).toBeLessThanOrEqual(40);
    expect(cut[1]).toMatch(/^a-very.*….*orders/);
    expect(formatColumns(rows, { columns: layout })[1]).toContain('a-very-long-key-name-for-orders');
  });

  it('wraps a prose last column under itself, between words', () => {
    const text = 'a lock key without TTL never frees if its holder dies';
    const lines = formatColumns([['error', 'no-ttl', text]], { width: 40, wrapLast: true });
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(lines.slice(1).every((l) => l.startsWith(' '.repeat('error  no-ttl  '.length)))).toBe(true);
    wordsKept(text, lines);
  });
});

describe('wrapText', () => {
  const text = 'A and B were both in the critical section for 200 ms while the lease of 0.50 s had run out';

  it.each([30, 44, 70, 120])('at %d columns: no line too wide, no word split, a unit stays with its number', (width) => {
    const lines = wrapText(text, width, { head: '  ! mutual-exclusion: ', indent: '    ' });
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
    wordsKept(text, lines);
    expect(lines.join('\n')).not.toMatch(/\d\n\s*(ms|s)\b/);
  });

  it('a duration of minutes or hours stays whole: `expires in 4 m 51 s` never ends a line at `4 m`', () => {
    const header = 'orders:2024:eu-west-1:customer-4242:invoice-lock  Redisson lock, expires in 4 m 51 s';
    for (let width = 30; width < header.length; width++) {
      const joined = wrapText(header, width).join('\n');
      expect(joined, `at ${width}`).toMatch(/4 m 51 s/);
      expect(wrapText(`lease left 2 h 05 m of ${width} h`, 16).join('\n')).toMatch(/2 h 05 m/);
    }
  });

  it('a coloured line loses no text when wrapped, and each of its lines carries the colour', () => {
    const red = (t: string) => `\u001b[31m${t}\u001b[39m`;
    const message = 'no TTL: will never expire; if its holder dies it stays locked until someone deletes it';
    const plain = (l: string) => l.replace(/\u001b\[[0-9;]*m/g, '');
    for (let width = 40; width <= 100; width++) {
      const lines = wrapLine(red(`  error     ${message}`), width);
      for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
      expect(lines.map((l) => plain(l).trim()).join(' '), `at ${width}`).toBe(`error     ${message}`);
      expect(lines.slice(1).every((l) => /^ {12}\u001b\[31m\S/.test(l)), `at ${width}: ${JSON.stringify(lines)}`).toBe(true);
      const head = wrapText(red(message), width, { head: '  error     ' });
      expect(head.map((l) => plain(l).trim()).join(' ').replace(/^error\s+/, '')).toBe(message);
    }
  });

  it('cuts only a word longer than a whole line', () => {
    expect(wrapText('x'.repeat(25), 10)).toEqual(['xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx']);
  });

  it('wrapItems never splits an item', () => {
    expect(wrapItems('legend: ', ['= holding', '# in section', 'x crashed'], 30)).toEqual(['legend: = holding', '        # in section', '        x crashed']);
    expect(wrapItems('legend: ', ['= holding', '# in section', 'x crashed'], 32)).toEqual(['legend: = holding  # in section', '        x crashed']);
  });
});

describe('reflow (help prose)', () => {
  const help = `
Without --lease a watchdog renews the lease every lease/3 like Redisson's (30 s lease, renewed
every 10 s; change the lease with --watchdog). With --lease the lease is fixed.

Codes:
  no-ttl          a lock key without TTL never frees if its holder dies, and nothing tells
                  anyone that it will not
  queue-drift     fair deadlines further out than waiters x --fair-wait

Examples:
  redlock-cli hold orders --for 30s
  redlock-cli acquire pay --kind redlock --nodes redis://10.0.0.1,redis://10.0.0.2,redis://10.0.0.3`;

  it.each([60, 70, 120])('at %d columns every line fits and every word stays whole', (width) => {
    const out = reflow(help, width).split('\n');
    for (const l of out) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
    wordsKept(help.replace(/\\/g, ''), out);
  });

  it('joins a paragraph, hangs an item under its text, and keeps a command whole on a line when it fits', () => {
    const out = reflow(help, 120).split('\n');
    expect(out[1]).toBe(
      "Without --lease a watchdog renews the lease every lease/3 like Redisson's (30 s lease, renewed every 10 s; change the",
    );
    expect(out).toContain('  no-ttl          a lock key without TTL never frees if its holder dies, and nothing tells anyone that it will not');
    expect(out).toContain('  redlock-cli acquire pay --kind redlock --nodes redis://10.0.0.1,redis://10.0.0.2,redis://10.0.0.3');
  });

  it('a command too wide is continued with a backslash so it still pastes', () => {
    const out = reflow(help, 70).split('\n');
    const at = out.findIndex((l) => l.startsWith('  redlock-cli acquire pay'));
    expect(out[at]).toMatch(/ \\$/);
    expect(out[at + 1]).toMatch(/^ {6}\S/);
  });
});
