import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONNECTION_HELP_GROUP } from '../../src/commands/connection-flags.js';
import { runCli } from '../helpers/run-cli.js';

// The documented conventions (connection options and environment variables in docs/connecting.md,
// exit codes in docs/safety.md) are what `redlock-cli --help` says: a flag, variable or code added to
// one and not the other fails here.

const read = (doc: string) => readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8');

/** The first cells of the table in `doc` whose header row starts with `| <first> |`. */
function firstColumn(doc: string, first: string): string[] {
  const text = read(doc);
  const start = text.indexOf(`| ${first} |`);
  expect(start, `${doc} has a table starting "| ${first} |"`).toBeGreaterThan(0);
  const rows = text.slice(start).split('\n').slice(2);
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

describe('the documented conventions match --help', () => {
  it('connection options, environment variables and exit codes', async () => {
    const { code, stdout } = await runCli(['--help'], {});
    expect(code).toBe(0);
    const flags = helpSection(stdout, CONNECTION_HELP_GROUP)
      .map((l) => /^ {2}(\S.*?)(?: {2,}|$)/.exec(l)?.[1])
      .filter((f): f is string => f !== undefined);
    expect(flags.length).toBeGreaterThan(10);
    expect(firstColumn('docs/connecting.md', 'option')).toEqual(flags);
    const variables = helpSection(stdout, 'Environment:').map((l) => l.trim().split(/\s+/)[0]);
    expect(firstColumn('docs/connecting.md', 'variable')).toEqual(variables);
    const codes = helpSection(stdout, 'Exit codes:').map((l) => l.trim().split(/\s+/)[0]);
    expect(codes).toContain('9');
    expect(firstColumn('docs/safety.md', 'code')).toEqual(codes);
  });
});
