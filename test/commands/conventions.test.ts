import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONNECTION_HELP_GROUP } from '../../src/commands/connection-flags.js';
import { runCli } from '../helpers/run-cli.js';

// The README's conventions (connection options, environment variables, exit codes) are what
// `redlock-cli --help` says: a flag, variable or code added to one and not the other fails here.

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The first cells of the README table whose header row starts with `| <first> |`. */
function firstColumn(first: string): string[] {
  const start = readme.indexOf(`| ${first} |`);
  expect(start, `README has a table starting "| ${first} |"`).toBeGreaterThan(0);
  const rows = readme.slice(start).split('\n').slice(2);
  const cells: string[] = [];
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    cells.push(row.split('|')[1]!.trim().replace(/^`|`$/g, ''));
  }
  return cells;
}

/** The item lines of one --help section (not the lines its wrapped text continues on), up to the next blank line. */
function helpSection(help: string, heading: string): string[] {
  const start = help.indexOf(`${heading}\n`);
  expect(start, `--help has "${heading}"`).toBeGreaterThanOrEqual(0);
  const body = help.slice(start + heading.length + 1);
  return body
    .slice(0, body.search(/\n\n|$/))
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line));
}

describe('README conventions match --help', () => {
  it('connection options, environment variables and exit codes', async () => {
    const { code, stdout } = await runCli(['--help'], {});
    expect(code).toBe(0);
    const flags = helpSection(stdout, CONNECTION_HELP_GROUP)
      .map((l) => /^ {2}(\S.*?)(?: {2,}|$)/.exec(l)?.[1])
      .filter((f): f is string => f !== undefined);
    expect(flags.length).toBeGreaterThan(10);
    expect(firstColumn('option')).toEqual(flags);
    const variables = helpSection(stdout, 'Environment:').map((l) => l.trim().split(/\s+/)[0]);
    expect(firstColumn('variable')).toEqual(variables);
    const codes = helpSection(stdout, 'Exit codes:').map((l) => l.trim().split(/\s+/)[0]);
    expect(codes).toContain('9');
    expect(firstColumn('code')).toEqual(codes);
  });
});
