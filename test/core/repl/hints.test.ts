import { describe, expect, it } from 'vitest';
import { asTypedInRepl } from '../../../src/core/repl/hints.js';

describe('hints in the REPL', () => {
  it.each([
    ['release it with: redlock-cli release pay --kind token', 'stderr', 'release it with: release pay --kind token'],
    ['no sandbox is up: start one with: redlock-cli sandbox up', 'stderr', 'no sandbox is up: start one with: sandbox up'],
    ['killed n1; n1 stays killed (redlock-cli sandbox restart n1 brings it back as a replica)', 'stdout', 'killed n1; n1 stays killed (sandbox restart n1 brings it back as a replica)'],
    ['redlock-cli: unknown command', 'stderr', 'redlock-cli: unknown command'],
    ['{"hint":"redlock-cli release pay"}', 'stdout', '{"hint":"redlock-cli release pay"}'],
    ['[{"key":"redlock-cli sandbox"}]', 'stdout', '[{"key":"redlock-cli sandbox"}]'],
  ] as const)('%s (%s)', (line, stream, shown) => {
    expect(asTypedInRepl(line, stream)).toBe(shown);
  });
});
