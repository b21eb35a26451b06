import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
});
