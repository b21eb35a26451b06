import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_HELP, ExitCode } from '../../src/core/exit-codes.js';

// --help and the README's table list the same exit codes, and every code the program returns is
// in both (8, inconclusive, included).
describe('exit codes', () => {
  it('--help, the README table and ExitCode name the same codes', () => {
    const help = [...EXIT_CODE_HELP.matchAll(/^ {2}(\d+) {2,}/gm)].map((m) => Number(m[1]));
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## Exit codes'));
    const documented = [...table.slice(0, table.indexOf('\n## ', 3)).matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    const codes = Object.values(ExitCode).sort((a, b) => a - b);
    expect(help).toEqual(codes);
    expect(documented).toEqual(codes);
    expect(EXIT_CODE_HELP).toMatch(/^ {2}8 {4}scenario or race inconclusive/m);
  });
});
