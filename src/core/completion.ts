// Shell completion, the pure part: given the words typed so far, what can come next. The command
// tree is a plain description of the commander program (commands/completion-tree.ts builds it),
// so every command, subcommand and option completes without being listed here; values that live
// outside the program (saved targets, shipped scenarios) come from named sources read on demand.

/** Where an option's or argument's values come from when they are not a fixed list. */
export type ValueSource = 'target' | 'scenario' | 'key';

export interface Candidate {
  readonly value: string;
  readonly description?: string | undefined;
}

export interface ValueSpec {
  readonly choices?: readonly string[] | undefined;
  readonly source?: ValueSource | undefined;
}

export interface OptionNode extends ValueSpec {
  /** Every spelling: `-k`, `--kind`. */
  readonly flags: readonly string[];
  readonly description: string;
  /** `<value>`: always takes the next word; `[value]`: only when it does not look like an option. */
  readonly value: 'none' | 'required' | 'optional';
  /** Says where to connect (-u, -p, --target, ...): lock keys are read from the server these name. */
  readonly connection?: boolean | undefined;
}

export interface ArgNode extends ValueSpec {
  readonly name: string;
  readonly variadic: boolean;
}

export interface CommandNode {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly description: string;
  readonly hidden: boolean;
  readonly options: readonly OptionNode[];
  readonly args: readonly ArgNode[];
  readonly subcommands: readonly CommandNode[];
}

/** A source nobody provides completes nothing (a shell knows no lock keys; the REPL knows those on its panel). */
export type Sources = Readonly<Partial<Record<ValueSource, () => readonly Candidate[]>>>;

const isOptionWord = (word: string): boolean => word.startsWith('-') && word.length > 1 && word !== '--';

function findOption(path: readonly CommandNode[], flag: string): OptionNode | undefined {
  // The leaf's own options first, then its parents' (commander accepts program options anywhere).
  for (let i = path.length - 1; i >= 0; i--) {
    const option = path[i]!.options.find((o) => o.flags.includes(flag));
    if (option) return option;
  }
  return undefined;
}

function values(spec: ValueSpec, sources: Sources): Candidate[] {
  if (spec.choices) return spec.choices.map((value) => ({ value }));
  return spec.source ? [...(sources[spec.source]?.() ?? [])] : [];
}

interface Walk {
  readonly path: readonly CommandNode[];
  readonly positionals: number;
  readonly given: ReadonlySet<string>;
  /** The values typed for options so far, by every spelling of the option (`-u` and `--url`). */
  readonly typed: ReadonlyMap<string, string>;
  /** The last word was an option waiting for its value: the current word is that value. */
  readonly pending?: OptionNode | undefined;
  /** Past `--`: the words belong to another program (`hold key -- ./job.sh`). */
  readonly passthrough: boolean;
  /** The connection options typed so far, as argv: each by its long flag, with its value if it took one. */
  readonly connection: readonly string[];
}

/** Follows the words like commander would: subcommands, options and their values, positionals. */
function walk(root: CommandNode, words: readonly string[]): Walk {
  const path = [root];
  let positionals = 0;
  const given = new Set<string>();
  const typed = new Map<string, string>();
  const connection: string[] = [];
  const record = (option: OptionNode, value: string): void => {
    option.flags.forEach((f) => typed.set(f, value));
    if (option.connection) connection.push(value);
  };
  const state = (rest: Partial<Walk> = {}): Walk => ({ path, positionals, given, typed, connection, passthrough: false, ...rest });
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return state({ passthrough: true });
    if (isOptionWord(word)) {
      const flag = word.split('=', 1)[0]!;
      const option = findOption(path, flag);
      if (option) for (const f of option.flags) given.add(f);
      const next = words[i + 1];
      if (option && next === undefined && !word.includes('=') && option.value !== 'none') return state({ pending: option });
      if (option?.connection) connection.push(option.flags.find((f) => f.startsWith('--')) ?? flag);
      if (option && word.includes('=')) record(option, word.slice(flag.length + 1));
      if (!option || word.includes('=') || option.value === 'none' || next === undefined) continue;
      if (option.value === 'required' || !isOptionWord(next)) {
        record(option, next);
        i += 1;
      }
      continue;
    }
    const leaf = path[path.length - 1]!;
    const sub = positionals === 0 ? leaf.subcommands.find((c) => c.name === word || c.aliases.includes(word)) : undefined;
    if (sub) path.push(sub);
    else positionals += 1;
  }
  return state();
}

/**
 * What Tab can offer for the last word: the candidates, whether file names fit there too (a free
 * value such as a path, or the command `hold` runs; never a key, a kind or a name of ours), and,
 * when the word is a value from a source not given in `sources`, which one (a caller that can
 * read it asynchronously, such as lock keys from a server, fills it in), with the option values
 * typed on the line so far.
 */
export interface LineCompletion {
  readonly candidates: readonly Candidate[];
  readonly files: boolean;
  readonly needs?: ValueSource | undefined;
  readonly typed: ReadonlyMap<string, string>;
  /** Every spelling of each option given so far, with or without a value. */
  readonly given: ReadonlySet<string>;
  /** Where the line connects: its connection options as argv (lock keys are read from that server). */
  readonly connection: readonly string[];
}

/** Free text with no list of its own may be a path; a value from a source or a choice never is. */
const freeValue = (spec: ValueSpec): boolean => spec.choices === undefined && (spec.source === undefined || spec.source === 'scenario');

export function completeLine(root: CommandNode, words: readonly string[], sources: Sources): LineCompletion {
  const current = words[words.length - 1] ?? '';
  const state = walk(root, words.slice(0, -1));
  const line = { typed: state.typed, given: state.given, connection: state.connection };
  const matching = (all: readonly Candidate[]): Candidate[] => {
    const seen = new Set<string>();
    return all.filter((c) => c.value.startsWith(current) && !seen.has(c.value) && seen.add(c.value));
  };
  const forValue = (spec: ValueSpec, prefix = ''): LineCompletion => ({
    candidates: matching(values(spec, sources).map((c) => ({ ...c, value: `${prefix}${c.value}` }))),
    files: freeValue(spec),
    needs: spec.source !== undefined && sources[spec.source] === undefined ? spec.source : undefined,
    ...line,
  });
  const none = (files: boolean): LineCompletion => ({ candidates: [], files, ...line });
  if (state.passthrough) return none(true);
  if (state.pending) return forValue(state.pending);

  if (isOptionWord(current) && current.includes('=')) {
    const flag = current.slice(0, current.indexOf('='));
    const option = findOption(state.path, flag);
    if (!option || option.value === 'none') return none(false);
    return forValue(option, `${flag}=`);
  }
  const leaf = state.path[state.path.length - 1]!;
  if (current.startsWith('-')) {
    // The leaf's options, then its parents' (global ones such as --debug); each only once.
    const options = [...state.path].reverse().flatMap((node) => node.options);
    const candidates = matching(
      options
        .filter((o) => !o.flags.some((f) => state.given.has(f)))
        .map((o) => ({ value: o.flags.find((f) => f.startsWith('--')) ?? o.flags[0]!, description: o.description })),
    );
    return { candidates, files: false, ...line };
  }
  const subcommands = leaf.subcommands.filter((c) => !c.hidden);
  if (state.positionals === 0 && subcommands.length > 0) {
    return { candidates: matching(subcommands.map((c) => ({ value: c.name, description: c.description }))), files: false, ...line };
  }
  const arg = leaf.args[Math.min(state.positionals, leaf.args.length - 1)];
  if (!arg || (state.positionals >= leaf.args.length && !arg.variadic)) return none(false);
  return forValue(arg);
}

/** The candidates for the last word of `words` (the one being typed, possibly empty). */
export function completeWords(root: CommandNode, words: readonly string[], sources: Sources): Candidate[] {
  return [...completeLine(root, words, sources).candidates];
}

/** The COMP_WORDBREAKS characters that can sit inside a word (`=`, `:`); the rest are shell syntax. */
function breakChars(wordbreaks: string): Set<string> {
  return new Set([...wordbreaks].filter((ch) => !/\s/.test(ch) && !'"\'|&;()<>'.includes(ch)));
}

/**
 * What bash puts in place of the word: readline replaces only the text after the last of
 * COMP_WORDBREAKS (`=` and `:` by default) in the word, so candidates must drop what precedes it.
 */
export function forBash(candidates: readonly Candidate[], current: string, wordbreaks: string): string[] {
  let cut = -1;
  for (const ch of breakChars(wordbreaks)) cut = Math.max(cut, current.lastIndexOf(ch));
  return candidates.map((c) => c.value.slice(cut + 1));
}

/** Bash's default COMP_WORDBREAKS, for a bash older than the scripts (they always pass their own). */
export const DEFAULT_WORDBREAKS = ` \t\n"'><=;|&(:`;

/**
 * Candidates as the scripts read them: for bash (given its word breaks) bare values cut as
 * forBash cuts them; for zsh and fish `value<TAB>description`, the description on one line.
 */
export function candidateLines(candidates: readonly Candidate[], current: string, bashWordbreaks?: string): string[] {
  if (bashWordbreaks !== undefined) return forBash(candidates, current, bashWordbreaks);
  return candidates.map((c) => (c.description ? `${c.value}\t${c.description.replace(/\s+/g, ' ')}` : c.value));
}

/**
 * bash splits `--kind=fair` and `redis://h:1` at COMP_WORDBREAKS into `--kind` `=` `fair`: glue
 * a word made only of break characters to its neighbours again, so the walk sees what was typed.
 */
export function joinBashWords(words: readonly string[], wordbreaks: string): string[] {
  const breaks = breakChars(wordbreaks);
  const out: string[] = [];
  let glue = false;
  for (const word of words) {
    const isBreak = word !== '' && [...word].every((ch) => breaks.has(ch));
    if ((isBreak || glue) && out.length > 0) out[out.length - 1] += word;
    else out.push(word);
    glue = isBreak;
  }
  return out;
}

// ---- the nearest command name, for "unknown command" errors ----

/** Edit distance with adjacent transpositions (optimal string alignment), as commander's suggestions use. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates nearest to a mistyped word, by commander's rule (at most 2 edits, more than 40%
 * of the longer word kept, every candidate at the best distance), so `help inspcet` and
 * `inspcet` suggest the same names.
 */
export function nearestNames(word: string, candidates: readonly string[]): string[] {
  let best = 3;
  let similar: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate.length <= 1) continue;
    const distance = editDistance(word, candidate);
    const length = Math.max(word.length, candidate.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < best) [best, similar] = [distance, [candidate]];
    else if (distance === best) similar.push(candidate);
  }
  return similar.sort((a, b) => a.localeCompare(b));
}

/** ` (Did you mean x?)`, the way commander ends its unknown-command line; '' with nothing near. */
export function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return '';
  return names.length === 1 ? ` (Did you mean ${names[0]}?)` : ` (Did you mean one of ${names.join(', ')}?)`;
}

export type CommandLookup =
  | { readonly ok: true; readonly path: readonly CommandNode[] }
  | {
      readonly ok: false;
      readonly message: string;
      readonly nearest: readonly string[];
      /** The command the unknown word was looked for under ('' at the top). */
      readonly under: string;
      /** That command takes no subcommands at all. */
      readonly leaf: boolean;
    };

/**
 * Follows command words down the tree (`sandbox up`), as `help <command...>` does. A word that
 * names nothing gives the error line commander gives for one typed as a command, with the nearest
 * names of that level; `alsoTop` adds names that live beside the tree's (the REPL's own commands).
 */
export function lookupCommand(root: CommandNode, words: readonly string[], alsoTop: readonly string[] = []): CommandLookup {
  const path: CommandNode[] = [];
  let node = root;
  for (const [i, word] of words.entries()) {
    const sub = node.subcommands.find((c) => c.name === word || c.aliases.includes(word));
    if (sub) {
      path.push(sub);
      node = sub;
      continue;
    }
    const typed = words.slice(0, i + 1).join(' ');
    const under = path.map((c) => c.name).join(' ');
    if (path.length > 0 && node.subcommands.length === 0) {
      return { ok: false, message: `unknown command '${typed}': ${under} has no subcommands`, nearest: [], under, leaf: true };
    }
    const visible = node.subcommands.filter((c) => !c.hidden).flatMap((c) => [c.name, ...c.aliases]);
    const nearest = nearestNames(word, path.length === 0 ? [...visible, ...alsoTop] : visible).map((n) => (under ? `${under} ${n}` : n));
    return { ok: false, message: `unknown command '${typed}'${didYouMean(nearest)}`, nearest, under, leaf: false };
  }
  return { ok: true, path };
}
