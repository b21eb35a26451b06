import type { CommandNode } from '../core/completion.js';

export { commandTree } from '../commands/completion-tree.js';

// The REPL reads the same plain tree of the commander program as shell completion
// (commands/completion-tree.ts) to find a line's command, positionals and options.

/** Where the command path ends and what the words after it are: the leaf command, its positionals. */
export interface ParsedLine {
  readonly path: readonly CommandNode[];
  /** Index in argv just after the command path (where connection options can be inserted). */
  readonly afterPath: number;
  readonly positionals: readonly string[];
  /** Option spellings given (`--kind`, `-u`), without values. */
  readonly flags: ReadonlySet<string>;
}

/** Walks argv like commander would, enough to know the command, its positionals and options. */
export function parseLine(tree: CommandNode, argv: readonly string[]): ParsedLine {
  const path: CommandNode[] = [];
  let node = tree;
  let afterPath = 0;
  const positionals: string[] = [];
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-') && word.length > 1) {
      const [flag] = word.split('=', 1) as [string];
      flags.add(flag);
      const option = node.options.find((o) => o.flags.includes(flag));
      if (option && option.value !== 'none' && !word.includes('=') && (option.value === 'required' || !argv[i + 1]?.startsWith('-'))) i += 1;
      continue;
    }
    const sub = positionals.length === 0 ? node.subcommands.find((c) => c.name === word || c.aliases.includes(word)) : undefined;
    if (sub) {
      node = sub;
      path.push(sub);
      afterPath = i + 1;
    } else positionals.push(word);
  }
  return { path, afterPath, positionals, flags };
}

/** Was this option (in any of its spellings: `-k` for `--kind`) given to the leaf command? */
export function hasOption(line: ParsedLine, flag: string): boolean {
  const leaf = line.path[line.path.length - 1];
  const option = leaf?.options.find((o) => o.flags.includes(flag));
  return option?.flags.some((f) => line.flags.has(f)) === true;
}

/** Does the leaf command take this option at all? */
export function takesOption(line: ParsedLine, flag: string): boolean {
  const leaf = line.path[line.path.length - 1];
  return leaf?.options.some((o) => o.flags.includes(flag)) === true;
}
