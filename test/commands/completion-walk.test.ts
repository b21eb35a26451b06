import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerLines, shippedScenarios } from '../../src/commands/completion-answer.js';
import { COMPLETION_WALK } from '../../src/commands/completion-walk.js';
import { completionTable } from '../../src/core/completion-table.js';
import { completeLine, joinBashWords, type CommandNode } from '../../src/core/completion.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// The scripts answer most Tabs with awk over a table, the rest through __complete: the two walks
// must agree. This runs the awk walk (as the scripts run it: the program, the shell, the words,
// the table on stdin) over lines made from the whole real command tree, and compares each answer
// with __complete's; where a lock key goes, that awk hands over the word and the same connection
// options the TypeScript walk picks out (`:keys`), and where saved targets go, the line (`:ask`).

const run = promisify(execFile);
const env = tempStateEnv();
let tree: CommandNode;
let table: string;

beforeAll(async () => {
  const result = await runCli(['__complete', '--tree'], env);
  tree = JSON.parse(result.stdout) as CommandNode;
  table = completionTable(tree, shippedScenarios().map((c) => c.value));
});

/** The awk walk's answer, its lines. */
async function walk(shell: string, words: readonly string[]): Promise<string[]> {
  const child = run('awk', ['--', COMPLETION_WALK, shell, ...words], { env: { PATH: process.env.PATH, COMP_WORDBREAKS: ` \t\n"'><=;|&(:` } });
  child.child.stdin!.end(table);
  return (await child).stdout.split('\n').slice(0, -1);
}

/** Lines a user could type, from every command of the tree: subcommands, options, their values, positionals, past `--`. */
function lines(node: CommandNode, path: readonly string[] = []): string[][] {
  const out: string[][] = [[...path, ''], [...path, '-'], [...path, '--h'], [...path, 'k', ''], [...path, 'k', '--', ''], [...path, 'k', 'j', '']];
  for (const sub of node.subcommands.slice(0, 3)) out.push([...path, sub.name.slice(0, 2)]);
  // Options taking a value, a few per command: with a space, with =, and what follows them.
  for (const o of node.options.filter((o) => o.value !== 'none' && !o.connection).slice(0, 4)) {
    const long = o.flags.find((f) => f.startsWith('--')) ?? o.flags[0]!;
    out.push([...path, o.flags[0]!, ''], [...path, `${long}=`], [...path, `${long}=r`], [...path, long, 'x', '']);
  }
  out.push([...path, '-u', 'redis://h:1', 'k', '--'], [...path, '--sandbox', '--j'], [...path, '-k', 'r']);
  for (const sub of node.subcommands) out.push(...lines(sub, [...path, sub.name]));
  return out;
}

/** Runs `fn` over `items`, at most 8 at a time (each starts one awk). */
async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 8) await Promise.all(items.slice(i, i + 8).map(fn));
}

describe('the awk walk the scripts carry', () => {
  it('answers every line of the real tree as __complete does, or hands over exactly where keys or targets go', async () => {
    const all = lines(tree);
    expect(all.length).toBeGreaterThan(300);
    let keys = 0;
    await inBatches(all, async (words) => {
      const got = await walk('zsh', words);
      const line = completeLine(tree, words, { scenario: shippedScenarios });
      const needs = line.needs;
      if (got[0] === ':keys') {
        keys += 1;
        expect(needs, words.join(' ')).toBe('key');
        expect(got, words.join(' ')).toEqual([':keys', `=${words[words.length - 1]}`, ...line.connection]);
      } else if (got[0] === ':ask') {
        expect(got, words.join(' ')).toEqual([':ask']);
        expect(needs, words.join(' ')).toBe('target');
      } else {
        expect(needs, words.join(' ')).toBeUndefined();
        expect(got, words.join(' ')).toEqual(await answerLines(tree, { stdout: process.stdout, stderr: process.stderr, env }, 'zsh', words));
      }
    });
    // Keys (inspect k, release k, ...), with connection options before them, were among them.
    expect(keys).toBeGreaterThan(20);
    expect(await walk('zsh', ['--no-color', 'inspect', '--sandbox', '-u', 'redis://:pw@h:1', '--db=2', '-a', 'x', '--tls', 'ord'])).toEqual([
      ':keys', '=ord', '--sandbox', '--url', 'redis://:pw@h:1', '--db', '2', '--pass', 'x', '--tls',
    ]);
  }, 180_000);

  it('rejoins what bash split at its word breaks and cuts each value after the last break, as __complete does', async () => {
    const split = [
      ['acquire', 'k', '--kind', '=', 'f'],
      ['acquire', 'k', '--kind', '='],
      ['inspect', 'k', '-u', 'redis', ':', '//h', ':', '1', '--ki'],
      ['target', 'add', 'p', 'redis', ':', '//h', ':', '1', '--sen'],
      ['scenario', 'run', 'gc', ':'],
      ['completion', ''],
      [''],
    ];
    await inBatches(split, async (words) => {
      const wordbreaks = { COMP_WORDBREAKS: ` \t\n"'><=;|&(:` };
      expect(await walk('bash', words), words.join(' ')).toEqual(
        await answerLines(tree, { stdout: process.stdout, stderr: process.stderr, env: { ...env, ...wordbreaks } }, 'bash', words),
      );
    });
    expect(joinBashWords(['--kind', '=', 'f'], ' =')).toEqual(['--kind=f']);
  });
});
