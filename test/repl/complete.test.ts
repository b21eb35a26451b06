import { describe, expect, it } from 'vitest';
import { complete, commonPrefix, type CompletionSources } from '../../src/core/repl/complete.js';
import { completionPoint } from '../../src/core/repl/tokenize.js';
import { buildProgram } from '../../src/cli/program.js';
import { ALL_COMMANDS } from '../../src/repl/entry.js';
import { BUILTINS } from '../../src/repl/builtins.js';
import { commandTree } from '../../src/repl/command-tree.js';
import { sandboxTarget, urlTarget, withTarget } from '../../src/repl/target.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';

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

describe('withTarget', () => {
  const target = urlTarget('redis://127.0.0.1:7001');

  it('adds the connection options right after the command path, before any -- command', () => {
    expect(withTarget(tree, ['acquire', 'k'], target)).toEqual(['acquire', '--url', 'redis://127.0.0.1:7001', 'k']);
    expect(withTarget(tree, ['hold', 'k', '--', 'sh', '-c', 'x'], target)).toEqual(['hold', '--url', 'redis://127.0.0.1:7001', 'k', '--', 'sh', '-c', 'x']);
  });

  it('leaves commands alone that take no connection options or have their own', () => {
    expect(withTarget(tree, ['sandbox', 'status'], target)).toEqual(['sandbox', 'status']);
    expect(withTarget(tree, ['inspect', 'k', '-u', 'redis://h:1'], target)).toEqual(['inspect', 'k', '-u', 'redis://h:1']);
    expect(withTarget(tree, ['ls', '--cluster', 'h:1'], target)).toEqual(['ls', '--cluster', 'h:1']);
  });

  it('a Redlock sandbox makes lock commands Redlock unless another kind is asked for', () => {
    const handle = {
      name: 'default',
      topology: 'redlock',
      urls: { nodes: { n1: 'redis://127.0.0.1:1', n2: 'redis://127.0.0.1:2', n3: 'redis://127.0.0.1:3' }, cliArgs: [] },
    } as unknown as SandboxHandle;
    const redlock = sandboxTarget(handle);
    const nodes = 'redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3';
    expect(redlock.label).toBe('sandbox:redlock');
    expect(withTarget(tree, ['acquire', 'k'], redlock)).toEqual(['acquire', '--url', 'redis://127.0.0.1:1', '--kind', 'redlock', '--nodes', nodes, 'k']);
    expect(withTarget(tree, ['acquire', 'k', '-k', 'fair'], redlock)).toEqual(['acquire', '--url', 'redis://127.0.0.1:1', 'k', '-k', 'fair']);
    expect(withTarget(tree, ['inspect', 'k'], redlock)).toEqual(['inspect', '--url', 'redis://127.0.0.1:1', 'k']);
  });
});
