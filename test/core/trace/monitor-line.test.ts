import { describe, expect, it } from 'vitest';
import { formatMonitorLine, parseMonitorLine } from '../../../src/core/trace/monitor-line.js';

describe('MONITOR lines', () => {
  it('parses time, db, client and arguments', () => {
    const line = parseMonitorLine('1764064800.123456 [3 127.0.0.1:53210] "SET" "orders" "6f1c" "NX" "PX" "30000"');
    expect(line).toEqual({ t: 1764064800123.456, db: 3, source: '127.0.0.1:53210', args: ['SET', 'orders', '6f1c', 'NX', 'PX', '30000'] });
  });

  it('knows lua lines and unix sockets', () => {
    expect(parseMonitorLine('1764064800.000001 [0 lua] "pexpire" "orders" "30000"')?.source).toBe('lua');
    expect(parseMonitorLine('1764064800.000001 [0 unix:/tmp/r.sock] "del" "x"')?.source).toBe('unix:/tmp/r.sock');
  });

  it('undoes the server escapes: quotes, backslashes, control bytes, UTF-8 as \\x bytes', () => {
    const line = parseMonitorLine(String.raw`1764064800.5 [0 127.0.0.1:1] "set" "a\" \"b" "c\\d" "e\nf\x1b[31m" "\xc3\xa9t\xc3\xa9"`);
    expect(line?.args).toEqual(['set', 'a" "b', 'c\\d', 'e\nf\x1b[31m', 'été']);
    expect(line?.t).toBe(1764064800500);
  });

  it('round-trips any argument through the server format, hostile ones included', () => {
    const args = ['EVAL', 'return 1', '1', 'k" "ey] [0 lua]', '\u0000\u00ff\r\n', 'ключ'];
    const text = formatMonitorLine({ t: 1764064800123.5, db: 0, source: '127.0.0.1:9', args });
    expect(parseMonitorLine(text)).toEqual({ t: 1764064800123.5, db: 0, source: '127.0.0.1:9', args });
  });

  it('reads Valkey 8.1.0-8.1.1 lines, whose quotes and backslashes are not escaped', () => {
    // As those versions print them: " and \ as they are, a newline as \n, other bytes as \xHH.
    const eval_ = String.raw`1795822207.149999 [0 127.0.0.1:47042] "eval" "if redis.call("get", KEYS[1]) == ARGV[1] then\nreturn redis.call("del", KEYS[1]) end" "1" "k"x" "c:\dir\" "\xc3\xa9"`;
    const script = 'if redis.call("get", KEYS[1]) == ARGV[1] then\nreturn redis.call("del", KEYS[1]) end';
    expect(parseMonitorLine(eval_)?.args).toEqual(['eval', script, '1', 'k"x', 'c:\\dir\\', 'é']);
    expect(parseMonitorLine('1795822207.150061 [0 lua] "del" "k"x"')).toEqual({ t: 1795822207150.061, db: 0, source: 'lua', args: ['del', 'k"x'] });
  });

  it('is not fooled by other lines (redis-cli prints OK first)', () => {
    expect(parseMonitorLine('OK')).toBeUndefined();
    expect(parseMonitorLine('')).toBeUndefined();
    expect(parseMonitorLine('1764064800.1 [0 127.0.0.1:1] "unterminated')).toBeUndefined();
  });

  it('keeps bytes that are not UTF-8 as \\xHH text, and reads the head exactly as the server writes it', () => {
    // \xff is no UTF-8: the argument is shown byte by byte, as a key of binary bytes must be.
    expect(parseMonitorLine(String.raw`1764064800.000001 [0 127.0.0.1:1] "get" "k\xff\x41"`)?.args).toEqual(['get', 'k\\xffA']);
    // Fractions of 1 to 6 digits are padded as the server pads them; 7 are not a MONITOR line.
    expect(parseMonitorLine('1764064800.05 [12 127.0.0.1:1] "ping"')).toEqual({ t: 1764064800050, db: 12, source: '127.0.0.1:1', args: ['ping'] });
    expect(parseMonitorLine('1764064800.0000001 [0 127.0.0.1:1] "ping"')).toBeUndefined();
    expect(parseMonitorLine('1764064800. [0 127.0.0.1:1] "ping"')).toBeUndefined();
    expect(parseMonitorLine('1764064800.1 [x 127.0.0.1:1] "ping"')).toBeUndefined();
    expect(parseMonitorLine('1764064800.1 [0 127.0.0.1:1] "ping" x')).toBeUndefined();
    // A timestamp of more digits than a double holds is read as Number() reads it.
    expect(parseMonitorLine('12345678901234567890.5 [0 lua] "ping"')?.t).toBe(Number('12345678901234567890') * 1000 + 500);
  });

  it('parses a long run of hostile arguments back exactly, line after line', () => {
    const pieces = ['"', '\\', ' ', '\n', '\r\t', '\u0000', '\u0085', 'é', 'ключ', '\u{1f512}', 'x', '\\x41', '" "'];
    for (let n = 0; n < 500; n++) {
      const args = ['EVALSHA', ...Array.from({ length: 1 + (n % 5) }, (_, i) => pieces.slice((n + i) % pieces.length, ((n * 7 + i) % pieces.length) + 1).join(''))];
      const line = { t: 1764064800000 + n * 0.001, db: n % 16, source: n % 2 ? 'lua' : `127.0.0.1:${n}`, args };
      expect(parseMonitorLine(formatMonitorLine(line))).toEqual({ ...line, t: parseMonitorLine(formatMonitorLine(line))!.t });
      expect(parseMonitorLine(formatMonitorLine(line))!.t).toBeCloseTo(line.t, 3);
    }
  });
});
