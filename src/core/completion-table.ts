import type { CommandNode, OptionNode, ValueSpec } from './completion.js';

// The command tree as the lines the completion scripts carry, for the awk walk that answers a
// Tab without starting node (commands/completion-walk.ts reads them). One fact per line, tab-separated:
//
//   o <id> <flags> <takes> <connection> <files> <ask> <choices> <description>   an option, defined once
//   r <option ids>                                                  the program's own options
//   c <parent> <name> <aliases> <hidden> <option ids> <description> a command under <parent>
//   a <command> <variadic> <files> <ask> <choices>                  its next positional argument
//
// <takes> is none, required or optional; <connection> 1 for the options that say where to connect
// (lock keys are read from that server, so the walk hands them on); <files> 1 where a file name fits (free text); <ask> is
// `-`, or the source only a process can read (`key`: the server's locks, `target`: saved
// targets); <choices> the fixed values, space-separated. Scenario names are fixed for a given
// install, so they are written in as choices. Lists are space-separated; <command> and <parent>
// are command paths such as `sandbox up` ('' for the program).

/** The values a spec offers once the install's scenario names are known. */
interface TableSpec {
  readonly files: boolean;
  readonly ask: 'key' | 'target' | undefined;
  readonly choices: readonly string[];
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

function tableSpec(spec: ValueSpec, scenarios: readonly string[]): TableSpec {
  // Free text with no list of its own may be a path: as core/completion.ts decides.
  const files = spec.choices === undefined && (spec.source === undefined || spec.source === 'scenario');
  if (spec.choices) return { files, ask: undefined, choices: spec.choices };
  if (spec.source === 'scenario') return { files, ask: undefined, choices: scenarios };
  return { files, ask: spec.source, choices: [] };
}

function specFields(spec: TableSpec): string[] {
  const bad = spec.choices.find((c) => c === '' || /\s/.test(c));
  if (bad !== undefined) throw new Error(`a completion choice must be one word: "${bad}"`);
  return [spec.files ? '1' : '0', spec.ask ?? '-', spec.choices.join(' ')];
}

/** The table for `tree`, scenario-name values filled with `scenarios`. */
export function completionTable(tree: CommandNode, scenarios: readonly string[]): string {
  const lines: string[] = [];
  const ids = new Map<string, number>();
  const optionIds = (options: readonly OptionNode[]): string =>
    options
      .map((o) => {
        const fields = [o.flags.join(' '), o.value, o.connection ? '1' : '0', ...specFields(tableSpec(o, scenarios)), oneLine(o.description)];
        const same = fields.join('\t');
        let id = ids.get(same);
        if (id === undefined) {
          id = ids.size + 1;
          ids.set(same, id);
          lines.push(['o', String(id), ...fields].join('\t'));
        }
        return String(id);
      })
      .join(' ');
  const visit = (node: CommandNode, path: string): void => {
    for (const arg of node.args) lines.push(['a', path, arg.variadic ? '1' : '0', ...specFields(tableSpec(arg, scenarios))].join('\t'));
    for (const sub of node.subcommands) {
      const fields = [sub.aliases.join(' '), sub.hidden ? '1' : '0', optionIds(sub.options), oneLine(sub.description)];
      lines.push(['c', path, sub.name, ...fields].join('\t'));
      visit(sub, path === '' ? sub.name : `${path} ${sub.name}`);
    }
  };
  lines.push(`r\t${optionIds(tree.options)}`);
  visit(tree, '');
  return `${lines.join('\n')}\n`;
}
