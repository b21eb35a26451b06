import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { monitorLog } from '../helpers/monitor-log.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace --json` writes one JSON object per line, whatever bytes the lock names carry. A name with
// a C1 control (U+0085, sent as the UTF-8 bytes \xc2\x85) once came out as `\x85` inside a JSON
// string: not JSON, and every reader of the stream stopped at that line.

describe('trace --from --json', () => {
  it('every line is JSON and keeps a lock name with control characters exactly', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'redlock-trace-json-')), 'monitor.log');
    writeFileSync(
      file,
      [
        'OK',
        String.raw`1764064800.000000 [0 127.0.0.1:5000] "SET" "a\xc2\x85b\xe2\x80\xa8c" "tok1" "NX" "PX" "30000"`,
        String.raw`1764064800.001000 [0 127.0.0.1:5000] "DEL" "a\xc2\x85b\xe2\x80\xa8c"`,
      ].join('\n'),
    );
    const { code, stdout, stderr } = await runCli(['trace', '--from', file, '--json'], tempStateEnv());
    expect(stderr).toBe('');
    expect(code).toBe(7); // the DEL of a held lock is a foreign delete
    const lines = stdout.trimEnd().split('\n');
    // Written as \uNNNN escapes, never raw: the stream stays plain ASCII on a terminal.
    expect(stdout).not.toMatch(/[\u0080-\u009f\u2028]/);
    const parsed = lines.map((line) => JSON.parse(line) as { type: string; kind?: string; lock?: string });
    expect(parsed.filter((p) => p.type === 'event').map((p) => [p.kind, p.lock])).toEqual([
      ['attempt', 'a\u0085b\u2028c'],
      ['acquired', 'a\u0085b\u2028c'],
      ['deleted', 'a\u0085b\u2028c'],
    ]);
    expect(parsed.at(-1)?.type).toBe('summary');
  });

  it('gives a Node stream (the process stdout) its bytes as they are, the same text as a capture of strings', async () => {
    // Decoding the gathered bytes to a string for the stream to encode again cost a few per cent
    // of a log's time: a Node stream takes the bytes; other outputs (a test, the REPL) get text.
    const file = join(mkdtempSync(join(tmpdir(), 'redlock-trace-json-')), 'monitor.log');
    writeFileSync(file, `${monitorLog('released', 2000)}${String.raw`1764064800.000000 [0 127.0.0.1:5000] "SET" "zam\xc3\xb3w" "t" "NX"`}\n`);
    const chunks: unknown[] = [];
    const stdout = new Writable({
      decodeStrings: false,
      write(chunk: unknown, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    const env = tempStateEnv();
    const code = await run(['trace', '--from', file, '--json'], { stdout, stderr: { write: () => true }, env });
    const text = await runCli(['trace', '--from', file, '--json'], env);
    expect(code).toBe(text.code);
    // Several writes of the events; the summary after them is a line of text.
    const events = chunks.filter((c) => c instanceof Uint8Array);
    expect(events.length).toBeGreaterThan(1);
    expect(chunks.map((c) => (c instanceof Uint8Array ? Buffer.from(c).toString('utf8') : String(c))).join('')).toBe(text.stdout);
  });
});
