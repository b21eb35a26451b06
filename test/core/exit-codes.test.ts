import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_HELP, ExitCode } from '../../src/core/exit-codes.js';

// --help and the table in docs/safety.md list the same exit codes, and every code the program returns is
// in both (8, inconclusive, included).
describe('exit codes', () => {
  it('--help, the docs/safety.md table and ExitCode name the same codes', () => {
    const help = [...EXIT_CODE_HELP.matchAll(/^ {2}(\d+) {2,}/gm)].map((m) => Number(m[1]));
    const doc = readFileSync(new URL('../../docs/safety.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Exit codes'));
    const end = section.indexOf('\n## ', 3);
    const table = end < 0 ? section : section.slice(0, end);
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    const codes = Object.values(ExitCode).sort((a, b) => a - b);
    expect(help).toEqual(codes);
    expect(documented).toEqual(codes);
    expect(EXIT_CODE_HELP).toMatch(/^ {2}8 {4}.*inconclusive/m);
  });
});
