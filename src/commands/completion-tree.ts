import { Help, type Argument, type Command, type Option } from 'commander';
import type { ArgNode, CommandNode, OptionNode, ValueSource } from '../core/completion.js';
import { INSPECT_KINDS } from '../core/lock-view.js';
import { LOCK_KINDS } from '../locks/types.js';
import { CONNECTION_HELP_GROUP } from './connection-flags.js';

// The commander program as a plain tree for core/completion.ts, read at completion time so every
// command registered in src/cli/commands.ts completes. What commander cannot say (where a free-text value
// comes from) is decided here by name, so new commands that reuse these names complete for free.

const help = new Help();
const firstLine = (text: string): string => text.split('\n', 1)[0]!.trim();

/** `--kind` without fixed choices: inspect and ls read every kind they decode, lock commands take LOCK_KINDS. */
function kinds(path: readonly string[]): readonly string[] {
  const leaf = path[path.length - 1];
  return leaf === 'inspect' || leaf === 'ls' ? INSPECT_KINDS.filter((k) => k !== 'missing') : LOCK_KINDS;
}

function optionNode(option: Option, path: readonly string[]): OptionNode {
  const choices = option.argChoices ?? (option.long === '--kind' ? kinds(path) : undefined);
  const source: ValueSource | undefined = option.long === '--target' ? 'target' : option.long === '--scenario' ? 'scenario' : undefined;
  return {
    flags: [option.short, option.long].filter((f): f is string => f !== undefined),
    description: firstLine(option.description),
    value: option.required ? 'required' : option.optional ? 'optional' : 'none',
    choices,
    source,
    ...(option.helpGroupHeading === CONNECTION_HELP_GROUP ? { connection: true } : {}),
  };
}

/** Lock keys for `<key>` arguments; scenario names for `scenario run <name>` and anything named like one; saved targets for `target show|remove <name>`. */
function argSource(path: readonly string[], name: string): ValueSource | undefined {
  if (/^key/i.test(name)) return 'key';
  if (path[0] === 'target' && path.length === 2 && path[1] !== 'add' && name === 'name') return 'target';
  if (/scenario/i.test(name) || (path[0] === 'scenario' && /^(name|file|path)/i.test(name))) return 'scenario';
  return undefined;
}

function argNode(arg: Argument, path: readonly string[]): ArgNode {
  return { name: arg.name(), variadic: arg.variadic, choices: arg.argChoices, source: argSource(path, arg.name()) };
}

/** Describes `cmd` and everything below it; hidden commands are walked but never offered. */
export function commandTree(cmd: Command, path: readonly string[] = []): CommandNode {
  const visible = help.visibleCommands(cmd);
  const subcommands = cmd.commands.map((sub) => ({ ...commandTree(sub, [...path, sub.name()]), hidden: !visible.includes(sub) }));
  // `help <command>` (commands/help.ts) completes its siblings; commander's implicit one, not in
  // cmd.commands, is added for a program without ours.
  const implicitHelp = visible.find((c) => !cmd.commands.includes(c));
  if (implicitHelp) subcommands.push({ ...commandTree(implicitHelp, [...path, 'help']), hidden: false });
  const names = subcommands.filter((c) => !c.hidden && c.name !== 'help').map((c) => c.name);
  const helpArgs = [{ name: 'command', variadic: false, choices: names }];
  const withHelp = subcommands.map((c) => (c.name === 'help' ? { ...c, options: [], args: helpArgs } : c));
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: firstLine(cmd.summary() || cmd.description()),
    hidden: false,
    options: help.visibleOptions(cmd).map((o) => optionNode(o, path)),
    args: cmd.registeredArguments.map((a) => argNode(a, path)),
    subcommands: withHelp,
  };
}

export { completionSources, shippedScenarios } from './completion-answer.js';
