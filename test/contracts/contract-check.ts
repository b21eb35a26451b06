import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { JSON_CONTRACTS, type JsonContract } from '../../src/core/contracts/index.js';
import { spawnCli } from '../helpers/cli-process.js';

// Runs the built CLI as a user would and checks what it printed against a contract of
// src/core/contracts: a document is one JSON value, NDJSON one value per line; each strictly.

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A private state and config dir, so sandboxes, remembered owners and targets stay in the test. */
export function isolatedEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-cli-contracts-'));
  return { XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') };
}

export async function runBuilt(args: readonly string[], env: Record<string, string>, boundMs = 60_000): Promise<Ran> {
  const cli = spawnCli(args, env, boundMs);
  const code = await cli.exited;
  return { code, stdout: cli.out(), stderr: cli.err() };
}

const contractOf = (file: string): JsonContract => {
  const contract = JSON_CONTRACTS.find((c) => c.file === file);
  if (!contract) throw new Error(`no contract named ${file}`);
  return contract;
};

/** The contracts some test has checked real output against. */
export const checked = new Set<string>();

/** Parses `text` as the contract's form and validates every value; returns the values. */
export function checkOutput(file: string, text: string): unknown[] {
  const contract = contractOf(file);
  const values =
    contract.form === 'document'
      ? [JSON.parse(text) as unknown]
      : text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as unknown);
  expect(values.length, `${file}: no output`).toBeGreaterThan(0);
  for (const value of values) {
    const result = contract.schema.safeParse(value);
    expect(result.success ? [] : result.error.issues, `${file}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
  }
  checked.add(file);
  return values;
}

/** A failed run under --json: stderr is exactly one error object, with the exit code it exited with. */
export function checkError(ran: Ran, exit: number, code: string): string {
  expect(ran.code).toBe(exit);
  expect(ran.stderr.endsWith('\n') && ran.stderr.indexOf('\n') === ran.stderr.length - 1, ran.stderr).toBe(true);
  const [value] = checkOutput('error', ran.stderr) as [{ error: { code: string; exit: number; message: string } }];
  expect([value.error.code, value.error.exit]).toEqual([code, exit]);
  return value.error.message;
}
