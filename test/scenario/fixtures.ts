// Scenario files for the loader tests, inline so the shipped catalogue in scenarios/ stays the
// catalogue. Line numbers in the error tests refer to BASE as laid out here.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { CliError } from '../../src/core/errors.js';
import { parseScenario } from '../../src/scenario/load.js';

export const BASE = `title: Lost lock
summary: B takes the lock while A is paused
narration: A pauses past its lease.
sandbox: { topology: replicated }
lock: { kind: token, key: orders }
clients:
  - A
  - { name: B, stop-on-lost: true }
steps:
  - { at: 0ms, client: A, do: acquire, lease: 300ms }
  - { at: 20ms, client: A, do: pause, for: 500ms }
  - { at: 400ms, client: B, do: acquire, wait: 1s, only: fixed }
  - { at: 1s, fault: kill, node: n1 }
variants:
  unsafe: { description: no fencing, expect: [stale-write] }
  fixed: { description: fencing, expect: safe }
`;

/** BASE with `from` (which must occur exactly once) replaced by `to`. */
export function edit(from: string, to: string, text = BASE): string {
  expect(text.split(from).length - 1, `"${from}" occurs once in the fixture`).toBe(1);
  return text.replace(from, to);
}

/** The one-line message parsing `text` fails with; asserts it is a usage error (exit 2). */
export function parseError(text: string, file = 'race.yaml'): string {
  try {
    parseScenario(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(2);
    const { message } = err as Error;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected the scenario to be refused');
}

/** A temp directory removed after the file's tests; `write` puts a file in it and returns its path. */
export function useTempDir(): { dir: () => string; write: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-scenario-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir: () => dir,
    write: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}
