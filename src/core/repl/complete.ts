// Tab completion for the REPL: its own commands (`as`, `use`, `watch`, ...) on top of the CLI's
// completion (core/completion.ts, the same walk shell completion uses), with the REPL's client
// names, the lock keys it knows, and sandbox names.

import { completeWords, type CommandNode, type Sources } from '../completion.js';
import type { CompletionPoint } from './tokenize.js';

/** What a REPL command's arguments are: completed from the matching source. */
export type BuiltinArg = 'client' | 'key' | 'command' | 'sandbox' | 'scenario' | 'none' | 'client-then-line';

export interface BuiltinSpec {
  readonly name: string;
  readonly args: BuiltinArg;
}

export interface CompletionSources {
  readonly builtins: readonly BuiltinSpec[];
  readonly clients: readonly string[];
  readonly sandboxes: readonly string[];
  /** Values of the CLI's options and arguments: lock keys, saved targets, shipped scenarios. */
  readonly values: Sources;
}

/** Every candidate that fits the word being typed (sorted, unique). */
export function complete(point: CompletionPoint, tree: CommandNode, sources: CompletionSources): string[] {
  const all = candidates(point.words, point.partial, tree, sources);
  return [...new Set(all)].filter((c) => c.startsWith(point.partial)).sort();
}

const cli = (tree: CommandNode, words: readonly string[], partial: string, sources: CompletionSources): string[] =>
  completeWords(tree, [...words, partial], sources.values).map((c) => c.value);

function candidates(words: readonly string[], partial: string, tree: CommandNode, sources: CompletionSources): string[] {
  if (words.length === 0) return [...sources.builtins.map((b) => b.name), ...cli(tree, [], partial, sources)];
  const builtin = sources.builtins.find((b) => b.name === words[0]);
  if (!builtin) return cli(tree, words, partial, sources);
  const rest = words.slice(1);
  const first = rest.length === 0;
  switch (builtin.args) {
    case 'client-then-line':
      return first ? [...sources.clients] : candidates(rest.slice(1), partial, tree, sources);
    case 'client':
      return first ? [...sources.clients] : [];
    case 'key':
      return (sources.values.key?.() ?? []).map((c) => c.value).filter((k) => !rest.includes(k));
    case 'sandbox':
      return first ? [...sources.sandboxes] : [];
    case 'scenario':
      return first ? (sources.values.scenario?.() ?? []).map((c) => c.value) : [];
    case 'command': // `help`: the REPL's commands too
      return first ? [...sources.builtins.map((b) => b.name), ...cli(tree, rest, partial, sources)] : cli(tree, rest, partial, sources);
    case 'none':
      return [];
  }
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
