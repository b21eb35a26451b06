import { describe, expect, it } from 'vitest';
import { complete, commonPrefix, type CompletionSources } from '../../src/core/repl/complete.js';
import { completionPoint } from '../../src/core/repl/tokenize.js';
import { buildProgram } from '../../src/cli/program.js';
import { ALL_COMMANDS } from '../../src/repl/entry.js';
import { BUILTINS } from '../../src/repl/builtins.js';
import { commandTree } from '../../src/repl/command-tree.js';

const quiet = { write: () => true };
const tree = commandTree(await buildProgram({ stdout: quiet, stderr: quiet, env: {}, exitCode: 0 }, ALL_COMMANDS));
const keys = ['orders', 'orders:eu', 'payments'];
const sources: CompletionSources = {
  builtins: BUILTINS,
  clients: ['A', 'B'],
  sandboxes: ['default'],
  values: { key: () => keys.map((value) => ({ value })), scenario: () => [{ value: 'expired-lease-misdeletion' }] },
};
const tab = (line: string): string[] => complete(completionPoint(line), tree, sources);

describe('completion over the real command tree', () => {
  it('first word: REPL commands and CLI commands', () => {
    expect(tab('ac')).toEqual(['acquire']);
    expect(tab('a')).toEqual(['acquire', 'as', 'attach']);
    expect(tab('__')).toEqual([]); // hidden commands are not offered
    expect(tab('')).toEqual(expect.arrayContaining(['as', 'watch', 'exit', 'acquire', 'hold', 'inspect', 'sandbox']));
  });

  it('options of the command being typed, without those already given', () => {
    expect(tab('acquire k --ki')).toEqual(['--kind']);
    expect(tab('acquire k --lease 5s --')).not.toContain('--lease');
    expect(tab('acquire k --lease 5s --')).toContain('--wait');
  });

  it('values of an option with choices', () => {
    expect(tab('acquire k --kind f')).toEqual(['fair', 'fenced']);
  });

  it('subcommands, and keys where a command takes a key', () => {
    expect(tab('sandbox st')).toEqual(['stall-replication', 'status']);
    expect(tab('acquire ord')).toEqual(['orders', 'orders:eu']);
    expect(tab('inspect orders p')).toEqual(['payments']);
    expect(tab('hold orders -- ')).toEqual([]);
  });

  it('clients after as and use, and the rest of the line after as <client>', () => {
    expect(tab('as ')).toEqual(['A', 'B']);
    expect(tab('use B')).toEqual(['B']);
    expect(tab('as B acq')).toEqual(['acquire']);
    expect(tab('as B release pay')).toEqual(['payments']);
    expect(tab('watch orders ')).toEqual(['orders:eu', 'payments']);
    expect(tab('help sand')).toEqual(['sandbox']);
    expect(tab('help wa')).toEqual(['watch']); // the REPL's own commands have help too
    expect(tab('help sandbox st')).toEqual(['stall-replication', 'status']);
    expect(tab('attach ')).toEqual(['default']);
    expect(tab('step exp')).toEqual(['expired-lease-misdeletion']);
  });

  it('commonPrefix is what Tab fills in when several fit', () => {
    expect(commonPrefix(['orders', 'orders:eu'])).toBe('orders');
    expect(commonPrefix(['fair', 'fenced'])).toBe('f');
    expect(commonPrefix([])).toBe('');
  });
});
