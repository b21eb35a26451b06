import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { kindsText } from '../core/scenario/timeline-text.js';
import { setupText, stepText } from '../scenario/describe.js';
import { listScenarios, resolveScenario } from '../scenario/load.js';
import { act, print, printJson, type CommandContext, tableWidth } from './context.js';
import { formatColumns, reflow, widthOf, wrapLine, wrapText } from '../core/text-layout.js';
import { runScenarioCommand, type RunFlags } from './scenario/run.js';
import { prose } from './help-text.js';
import { redisServerOption } from './options.js';
import { addHtmlOption } from './report-file.js';

const HELP = `
Each scenario replays a known lock race on real redis-server processes (a sandbox started for
the run and stopped after), with real clients going through the lock engine, records every
operation with its time, and checks the history for mutual exclusion, stale holders, stale
writes, lost updates, deadlock and starvation. Every scenario has an unsafe variant that shows
the race and a fixed one that shows the fix working; the file says which verdict each must reach.

Scenario files are YAML (scenarios/README.md in the package documents the format); copy a shipped
one (scenario show <name> prints its path) and run yours with: redlock-cli scenario run ./my-race.yaml

A verdict counts only when the run kept to its timetable: a variant whose steps or timers ran
later than its race tolerates (the file's tolerance, or a sixth of its shortest lease) is
inconclusive, runs again (3 runs at most), and is never reported as a verdict.

Exit codes here: 0 every variant reached its expected verdict; 7 one did not; 8 inconclusive (the
machine was too busy for a variant's timing, even after retries); 2 a bad scenario file
(file:line:col and the field are named) or option; 4 no such scenario; 3 the sandbox did not
start; 130 Ctrl-C (the sandbox is stopped first).

Examples:
  redlock-cli scenario list
  redlock-cli scenario show gc-pause-no-fencing
  redlock-cli scenario run expired-lease-misdeletion
  redlock-cli scenario run master-failover-lock-loss --variant fixed --speed 0.5
  redlock-cli scenario run --all
  redlock-cli scenario run --all --dir ./my-races --json
  redlock-cli scenario run gc-pause-no-fencing --html pause.html`;

function inherit(parent: Command, cmd: Command): Command {
  return cmd.exitOverride().configureOutput(parent.configureOutput());
}

function registerList(scenario: Command, ctx: CommandContext): void {
  const cmd = scenario
    .command('list')
    .summary('the shipped scenarios: name, topology, variants and a line on each')
    .option('--json', 'print a JSON array: name, title, summary, topology, lockKind, variants[] {name, expect[]}');
  inherit(scenario, cmd).action(act(ctx, async (flags: { json?: boolean }) => {
    const all = await listScenarios();
    if (flags.json) {
      printJson(ctx, all.map((s) => ({
        name: s.name,
        title: s.title,
        summary: s.summary,
        topology: s.sandbox.topology,
        lockKind: s.lock.kind,
        variants: s.variants.map((v) => ({ name: v.name, expect: v.expect })),
      })));
      return ExitCode.ok;
    }
    const rows = [['NAME', 'TOPOLOGY', 'SUMMARY'], ...all.map((s) => [s.name, s.sandbox.topology, s.summary])];
    for (const line of formatColumns(rows, { width: tableWidth(ctx), wrapLast: true })) print(ctx, line);
    return ExitCode.ok;
  }));
}

function registerShow(scenario: Command, ctx: CommandContext): void {
  const cmd = scenario
    .command('show')
    .summary('narration, sources, set-up, steps and variants of one scenario')
    .argument('<scenario>', 'a shipped scenario name or a path to a .yaml file')
    .option('--json', 'print the scenario as the runner reads it, durations in ms (docs/json/scenario-show.schema.json)');
  inherit(scenario, cmd).action(act(ctx, async (nameOrPath: string, flags: { json?: boolean }) => {
    const s = await resolveScenario(nameOrPath);
    if (flags.json) {
      printJson(ctx, s);
      return ExitCode.ok;
    }
    // Prose at the terminal's width (80 piped): the narration re-flowed, items wrapped under their text.
    const width = widthOf(ctx.stdout);
    const item = (text: string): string[] => wrapText(text, width, { head: '  - ', indent: '    ' });
    const lines = [
      ...wrapText(s.title, width, { head: `${s.name}: `, indent: '  ' }),
      `file      ${s.file}`,
      ...setupText(s).flatMap((line) => wrapLine(line, width)),
      '',
      ...reflow(s.narration.trimEnd(), width).split('\n'),
      '',
      'steps',
      ...s.steps.flatMap((step) => {
        const { at, lane, text } = stepText(step);
        return wrapText(text, width, { head: `  ${at.padStart(8)}  ${lane.padEnd(8)}  ` });
      }),
      '',
      'variants',
      ...s.variants.flatMap((v) => wrapText(`${v.description} (expect ${kindsText(v.expect)})`, width, { head: `  ${v.name}: `, indent: '    ' })),
      ...(s.lookFor.length > 0 ? ['', 'what to look at', ...s.lookFor.flatMap(item)] : []),
      ...(s.sources.length > 0 ? ['', 'sources', ...s.sources.flatMap(item)] : []),
    ];
    for (const line of lines) print(ctx, line);
    return ExitCode.ok;
  }));
}

function registerRun(scenario: Command, ctx: CommandContext): void {
  const cmd = scenario
    .command('run')
    .summary('replay a scenario on a fresh sandbox, draw its timeline and give a verdict per variant')
    .argument('[scenario]', 'a shipped scenario name or a path to a .yaml file')
    .option('--all', 'run every shipped scenario, with a progress view and a summary table')
    .option('--dir <path>', 'with --all: run every .yaml / .yml scenario file in this directory instead of the shipped ones')
    .option('--variant <name>', 'run one variant (unsafe, fixed, ...) or all', 'all')
    .addOption(new Option('--speed <factor>', 'time scale: 0.5 runs at half speed, 2 twice as fast (leases scale too)').default('1'))
    .option('--json', 'print the history and verdict of every variant as JSON instead of the timeline (--all: an array, one entry per scenario; one that could not run has its error)')
    .option('--keep-sandbox', 'leave the sandbox running afterwards, to look at it (sandbox down removes it)')
    .addOption(redisServerOption());
  addHtmlOption(cmd);
  inherit(scenario, cmd).action(act(ctx, async (nameOrPath: string | undefined, flags: RunFlags) => {
    if (flags.all && nameOrPath !== undefined) throw new UsageError('give a scenario or --all, not both');
    if (!flags.all && nameOrPath === undefined) throw new UsageError('name a scenario to run (redlock-cli scenario list shows them), or use --all');
    return runScenarioCommand(ctx, nameOrPath, flags);
  }));
}

/** `scenario list|show|run`. */
export function registerScenario(program: Command, ctx: CommandContext): void {
  const scenario = program
    .command('scenario')
    .summary('replay known lock races (lease misdeletion, failover lock loss, GC pause, clock jump, ...) with a verdict')
    .addHelpText('after', prose(ctx, HELP));
  registerList(scenario, ctx);
  registerShow(scenario, ctx);
  registerRun(scenario, ctx);
}
