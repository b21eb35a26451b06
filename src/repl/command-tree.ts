import type { Command } from 'commander';
import type { CommandNode, OptionNode } from '../core/repl/complete.js';

// Every command answers these, though commander does not list them among its options.
const HELP_OPTION: OptionNode = { flags: ['-h', '--help'], takesValue: false };

/** A plain description of the commander program, for completion and for finding a command's options. */
export function commandTree(cmd: Command): CommandNode {
  const options: OptionNode[] = cmd.options.map((o) => ({
    flags: [o.short, o.long].filter((f): f is string => f !== undefined),
    takesValue: o.required || o.optional,
    ...(o.argChoices ? { choices: [...o.argChoices] } : {}),
  }));
  return {
    name: cmd.name(),
    summary: cmd.summary() || cmd.description(),
    options: [...options, HELP_OPTION],
    args: cmd.registeredArguments.map((a) => ({ name: a.name(), variadic: a.variadic })),
    subcommands: cmd.commands.map(commandTree),
  };
}

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
      if (option?.takesValue && !word.includes('=')) i += 1;
      continue;
    }
    const sub = positionals.length === 0 ? node.subcommands.find((c) => c.name === word) : undefined;
    if (sub) {
      node = sub;
      path.push(sub);
      afterPath = i + 1;
    } else positionals.push(word);
  }
  return { path, afterPath, positionals, flags };
}

/** The option spellings of the leaf command that mean the same as `flag` (`-k` for `--kind`). */
export function hasOption(line: ParsedLine, flag: string): boolean {
  const leaf = line.path[line.path.length - 1];
  const option = leaf?.options.find((o) => o.flags.includes(flag));
  return option !== undefined && option.flags.some((f) => line.flags.has(f));
}

/** Does the leaf command take this option at all? */
export function takesOption(line: ParsedLine, flag: string): boolean {
  const leaf = line.path[line.path.length - 1];
  return leaf?.options.some((o) => o.flags.includes(flag)) === true;
}
