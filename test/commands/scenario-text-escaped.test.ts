// Issue 24, item 3: what a scenario file says for people to read reached the terminal with its
// colour codes raw (print keeps SGR for our own colours), in `scenario show`, `run` and the live
// views. It is escaped once, when the file is loaded; keys keep their bytes for Redis.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const FILE = `title: "T\\e[31mRED\\nFAKE\\u200b"
summary: "S\\e[31mX"
narration: "first line\\e[2J\\nsecond line"
sandbox: { topology: single }
lock: { kind: token, key: "ord\\e[31mers" }
clients: [A]
steps:
  - { at: 0ms, client: A, do: acquire, lease: 300ms }
  - { at: 10ms, note: "a note\\e]0;pwned\\a" }
variants:
  fixed: { description: "D\\e[31mX\\u202e", expect: safe }
`;

// Anything that would act on a terminal: C0 but newline, C1, format characters.
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}]/u;

describe('scenario text from a file', () => {
  it('is escaped when loaded; the lock key keeps its bytes', () => {
    const s = parseScenario(FILE, 'hostile.yaml');
    expect(s.title).toBe('T\\x1b[31mRED\\nFAKE\\u200b');
    expect(s.narration).toBe('first line\\x1b[2J\nsecond line');
    expect(s.variants[0]!.description).toBe('D\\x1b[31mX\\u202e');
    expect(s.steps.find((x) => 'note' in x)).toMatchObject({ note: 'a note\\x1b]0;pwned\\x07' });
    expect(s.lock.key).toBe('ord\x1b[31mers');
  });

  it('scenario show prints it, and the key, escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redlock-scenario-text-'));
    writeFileSync(join(dir, 'hostile.yaml'), FILE);
    const r = await runCli(['scenario', 'show', join(dir, 'hostile.yaml')], tempStateEnv({ FORCE_COLOR: '0' }));
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('hostile: T\\x1b[31mRED\\nFAKE\\u200b');
    expect(r.stdout).toContain('lock      token ord\\x1b[31mers');
    expect(r.stdout).toContain('fixed: D\\x1b[31mX\\u202e (expect safe)');
    expect(r.stdout).toContain('a note\\x1b]0;pwned\\x07');
  });
});
