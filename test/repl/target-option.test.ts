import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { ALL_COMMANDS } from '../../src/repl/entry.js';
import { commandTree } from '../../src/repl/command-tree.js';
import { urlTarget, withTarget } from '../../src/repl/target.js';

// A REPL line with `--target <name>` says where to connect: the REPL adding its own --url as well
// would make the command refuse the pair (--target and --url conflict).
const quiet = { write: () => true };
const tree = commandTree(await buildProgram({ stdout: quiet, stderr: quiet, env: {}, exitCode: 0 }, ALL_COMMANDS));

describe('REPL lines with --target', () => {
  it('keep their saved target instead of the REPL connection', () => {
    const target = urlTarget('redis://127.0.0.1:7001');
    expect(withTarget(tree, ['inspect', 'k', '--target', 'prod'], target)).toEqual(['inspect', 'k', '--target', 'prod']);
    expect(withTarget(tree, ['inspect', 'k'], target)).toEqual(['inspect', '--url', 'redis://127.0.0.1:7001', 'k']);
  });
});
