import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandPath } from '../../src/commands/help-examples.js';
import { buildProgram } from '../../src/cli/program.js';
import { ALL_COMMANDS } from '../../src/repl/entry.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Every command a user can reach, walked from the live tree: its --help has a summary, at least
// two examples that name the command and only options it has, and the exit codes.
const quiet = { write: () => undefined };
const program = await buildProgram({ stdout: quiet, stderr: quiet, env: {}, exitCode: 0 }, ALL_COMMANDS);
const env = tempStateEnv();

function commands(cmd: Command): Command[] {
  // Hidden ones (other tools' names, refused with ours: test/cli/foreign-names.test.ts) have no help of their own.
  const visible = cmd.createHelp().visibleCommands(cmd);
  return cmd.commands.filter((c) => !c.name().startsWith('__') && visible.includes(c)).flatMap((c) => [c, ...commands(c)]);
}

function ownOptions(cmd: Command): Set<string> {
  const flags = new Set(['--help', '-h']);
  for (let c: Command | null = cmd; c; c = c.parent) for (const o of c.options) [o.long, o.short].forEach((f) => f && flags.add(f));
  return flags;
}

const all = commands(program).map((c) => [commandPath(c), c] as const);

describe('help on every command', () => {
  it('the tree holds every command family', () => {
    const top = program.commands.map((c) => c.name());
    expect(top).toEqual(expect.arrayContaining(['acquire', 'hold', 'renew', 'release', 'force-unlock', 'inspect', 'ls', 'doctor', 'sandbox', 'scenario', 'race', 'trace', 'repl', 'target', 'completion']));
  });

  it('--pubsub (how unlock notifications go out) is offered where a command may notify, not on read-only ones', async () => {
    const has = (name: string) => program.commands.find((c) => c.name() === name)!.options.some((o) => o.long === '--pubsub');
    for (const name of ['acquire', 'hold', 'renew', 'release', 'force-unlock']) expect(has(name), name).toBe(true);
    for (const name of ['inspect', 'ls', 'doctor', 'trace']) expect(has(name), name).toBe(false);
    expect(await runCli(['ls', '--pubsub', 'plain'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option '--pubsub'") });
  });

  it.each(all)('%s --help: summary, two or more examples of itself with real options, exit codes', async (path, cmd) => {
    const r = await runCli([...path.split(' '), '--help'], env);
    expect(r.code).toBe(0);
    expect(cmd.summary() || cmd.description()).not.toBe('');
    const block = /\nExamples:\n((?: {2}.*\n?)+)/.exec(r.stdout);
    expect(block, `${path} --help has no Examples: block`).not.toBeNull();
    const examples = block![1]!.trimEnd().split('\n').map((l) => l.trim()).filter((l) => l.includes(`redlock-cli ${path}`));
    expect(examples.length, `${path}: examples naming the command`).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      const rest = example.slice(example.indexOf(`redlock-cli ${path}`) + `redlock-cli ${path}`.length).split(' -- ')[0]!;
      // A group's examples run its subcommands: their options count.
      const sub = cmd.commands.find((c) => c.name() === rest.trim().split(' ')[0]);
      const known = ownOptions(sub ?? cmd);
      for (const flag of rest.match(/(?<=^|\s)--?[a-zA-Z][\w-]*/g) ?? []) expect(known.has(flag), `${path}: example uses ${flag}`).toBe(true);
    }
    expect(r.stdout).toMatch(/Exit codes/);
    expect(r.stdout).toMatch(/^ {2}0 {4}success$/m);
  });

  it('help <command> prints the same as <command> --help, and an unknown command suggests the nearest', async () => {
    const viaHelp = await runCli(['help', 'acquire'], env);
    const viaFlag = await runCli(['acquire', '--help'], env);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    const typo = await runCli(['inspcet', 'orders'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown command 'inspcet'.*Did you mean inspect\?/);
  });

  it('help <group> <command> is that command\'s --help, at the top and inside the group', async () => {
    const viaFlag = await runCli(['sandbox', 'up', '--help'], env);
    expect(viaFlag.stdout).toMatch(/^Usage: redlock-cli sandbox up \[options\]/);
    for (const argv of [['help', 'sandbox', 'up'], ['sandbox', 'help', 'up']]) {
      expect(await runCli(argv, env), argv.join(' ')).toEqual({ code: 0, stdout: viaFlag.stdout, stderr: '' });
    }
    expect((await runCli(['help', 'target', 'add'], env)).stdout).toBe((await runCli(['target', 'add', '--help'], env)).stdout);
    // Without a command, help is the program's (or the group's) own help.
    expect((await runCli(['help'], env)).stdout).toBe((await runCli(['--help'], env)).stdout);
    expect((await runCli(['sandbox', 'help'], env)).stdout).toBe((await runCli(['sandbox', '--help'], env)).stdout);
  });

  it('help <unknown> is one usage line with the nearest command, as the typo alone gets, and exit 2', async () => {
    const alone = await runCli(['inspcet'], env);
    const cases: [string[], string][] = [
      [['help', 'inspcet'], alone.stderr],
      [['help', 'inspcet'], "redlock-cli: unknown command 'inspcet' (Did you mean inspect?)\n"],
      [['help', 'sandbox', 'uup'], "redlock-cli: unknown command 'sandbox uup' (Did you mean sandbox up?)\n"],
      [['sandbox', 'help', 'uup'], (await runCli(['sandbox', 'uup'], env)).stderr],
      [['help', 'acquire', 'now'], "redlock-cli: unknown command 'acquire now': acquire has no subcommands\n"],
      [['help', 'frobnicate'], "redlock-cli: unknown command 'frobnicate'\n"],
    ];
    for (const [argv, stderr] of cases) expect(await runCli(argv, env), argv.join(' ')).toEqual({ code: 2, stdout: '', stderr });
  });
});
