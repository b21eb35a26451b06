// Tab completion for the REPL: a pure walk over a plain description of the commander tree (built
// from the real program, so new commands complete without touching this file) plus the REPL's own
// commands and what it knows: client names, lock keys, sandbox names.

import type { CompletionPoint } from './tokenize.js';

export interface OptionNode {
  /** `-k` and `--kind`: every spelling. */
  readonly flags: readonly string[];
  readonly takesValue: boolean;
  readonly choices?: readonly string[] | undefined;
}

export interface ArgNode {
  readonly name: string;
  readonly variadic: boolean;
}

export interface CommandNode {
  readonly name: string;
  readonly summary: string;
  readonly options: readonly OptionNode[];
  readonly args: readonly ArgNode[];
  readonly subcommands: readonly CommandNode[];
}

/** What a REPL command's arguments are: completed from the matching source. */
export type BuiltinArg = 'client' | 'key' | 'command' | 'sandbox' | 'none' | 'client-then-line';

export interface BuiltinSpec {
  readonly name: string;
  readonly args: BuiltinArg;
}

export interface CompletionSources {
  readonly builtins: readonly BuiltinSpec[];
  readonly clients: readonly string[];
  readonly keys: readonly string[];
  readonly sandboxes: readonly string[];
}

/** Every candidate that fits the word being typed (sorted, unique). */
export function complete(point: CompletionPoint, tree: CommandNode, sources: CompletionSources): string[] {
  const matching = (all: Iterable<string>): string[] => [...new Set(all)].filter((c) => c.startsWith(point.partial)).sort();
  return matching(candidates(point.words, tree, sources, point.partial));
}

function candidates(words: readonly string[], tree: CommandNode, sources: CompletionSources, partial: string): string[] {
  if (words.length === 0) return [...sources.builtins.map((b) => b.name), ...tree.subcommands.map((c) => c.name)];
  const builtin = sources.builtins.find((b) => b.name === words[0]);
  if (builtin) {
    const rest = words.slice(1);
    switch (builtin.args) {
      case 'client-then-line':
        return rest.length === 0 ? [...sources.clients] : candidates(rest.slice(1), tree, sources, partial);
      case 'client':
        return rest.length === 0 ? [...sources.clients] : [];
      case 'key':
        return sources.keys.filter((k) => !rest.includes(k));
      case 'sandbox':
        return rest.length === 0 ? [...sources.sandboxes] : [];
      case 'command':
        return commandPath(tree, rest).subcommands.map((c) => c.name);
      case 'none':
        return [];
    }
  }
  return commandCandidates(words, tree, sources, partial);
}

/** The deepest command the words name (`sandbox up` -> up). */
function commandPath(tree: CommandNode, words: readonly string[]): CommandNode {
  let node = tree;
  for (const word of words) {
    const next = node.subcommands.find((c) => c.name === word);
    if (!next) break;
    node = next;
  }
  return node;
}

const findOption = (node: CommandNode, flag: string): OptionNode | undefined => node.options.find((o) => o.flags.includes(flag));

function commandCandidates(words: readonly string[], tree: CommandNode, sources: CompletionSources, partial: string): string[] {
  let node = tree;
  let positionals = 0;
  const given = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return []; // the command run under `hold`: not ours to complete
    if (word.startsWith('-') && word.length > 1) {
      const [flag] = word.split('=', 1) as [string];
      const option = findOption(node, flag);
      if (option) for (const f of option.flags) given.add(f);
      if (option?.takesValue && !word.includes('=')) {
        if (i === words.length - 1) return [...(option.choices ?? [])];
        i += 1;
      }
      continue;
    }
    const sub = positionals === 0 ? node.subcommands.find((c) => c.name === word) : undefined;
    if (sub) node = sub;
    else positionals += 1;
  }
  if (partial.startsWith('-')) {
    return node.options.filter((o) => !o.flags.some((f) => given.has(f))).flatMap((o) => o.flags.filter((f) => f.startsWith('--')));
  }
  if (positionals === 0 && node.subcommands.length > 0) return node.subcommands.map((c) => c.name);
  const arg = node.args[Math.min(positionals, node.args.length - 1)];
  if (!arg || (positionals >= node.args.length && !arg.variadic)) return [];
  if (/key/i.test(arg.name)) return [...sources.keys];
  if (/^name$/i.test(arg.name) && node.name !== 'up') return [...sources.sandboxes];
  return [];
}

/** The longest prefix every candidate shares (what Tab fills in when several fit). */
export function commonPrefix(items: readonly string[]): string {
  if (items.length === 0) return '';
  let prefix = items[0]!;
  for (const item of items) {
    while (!item.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
