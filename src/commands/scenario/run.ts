import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { NotFoundError, UsageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import { allMatched, outcomesExitCode, type ScenarioRun, type VariantRun } from '../../core/scenario/run.js';
import { summaryTable, type SummaryRow } from '../../core/scenario/scenario-summary.js';
import { scenarioRunText } from '../../core/scenario/timeline-text.js';
import { violationKinds } from '../../core/scenario/verdict.js';
import { listScenarios, resolveScenario } from '../../scenario/load.js';
import type { Scenario } from '../../scenario/model.js';
import { DEFAULT_ATTEMPTS, laneNodes, plannedMs, runScenario, type RunScenarioOptions } from '../../scenario/run-scenario.js';
import { findRedisServer } from '../../sandbox/binary.js';
import type { SandboxHandle } from '../../sandbox/handle.js';
import { note, print, printJson, type CommandContext } from '../context.js';
import { checkReportPath, writeReport } from '../report-file.js';
import { safeLine } from '../../core/terminal-text.js';
import { sandboxCommand } from '../../core/sandbox-hint.js';

export interface RunFlags {
  readonly all?: boolean;
  readonly variant: string;
  readonly speed: string;
  readonly json?: boolean;
  readonly keepSandbox?: boolean;
  /** With --all: run the .yaml files of this directory instead of the shipped catalogue. */
  readonly dir?: string;
  /** The server binary every scenario's sandbox runs (default $REDLOCK_REDIS_SERVER, then PATH). */
  readonly redisServer?: string;
  /** Write the run (one scenario) as an HTML page here. */
  readonly html?: string;
}

// Slower than a tenth or faster than 10x either takes minutes or leaves leases of a few ms.
function parseSpeed(text: string): number {
  const speed = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(speed >= 0.1 && speed <= 10)) {
    throw new UsageError(`invalid --speed "${text}": a factor from 0.1 to 10 (0.5 = half speed, 2 = twice as fast)`);
  }
  return speed;
}

function chooseVariants(scenario: Scenario, wanted: string): string[] | undefined {
  if (wanted === 'all') return undefined;
  if (!scenario.variants.some((v) => v.name === wanted)) {
    throw new UsageError(`scenario ${scenario.name} has no variant "${wanted}": use one of ${scenario.variants.map((v) => v.name).join(', ')}, or all`);
  }
  return [wanted];
}

/** The JSON of a run: the verdict in words and kinds next to the whole history. */
function runJson(run: ScenarioRun): unknown {
  return {
    name: run.name,
    title: run.title,
    matched: allMatched(run),
    variants: run.variants.map((v: VariantRun) => ({
      variant: v.variant,
      description: v.description,
      expected: v.expected,
      found: violationKinds(v.verdict),
      matched: v.outcome === 'as-expected',
      outcome: v.outcome,
      ...(v.timing.inconclusive !== undefined ? { inconclusive: v.timing.inconclusive } : {}),
      attempts: v.attempts,
      timing: v.timing,
      violations: v.verdict.violations,
      durationMs: v.durationMs,
      history: v.history,
    })),
  };
}

/** The --all JSON entry of a scenario that could not run (its sandbox did not start, a fault was refused, ...). */
function failedJson(scenario: Scenario, error: string): unknown {
  return { name: scenario.name, title: scenario.title, matched: false, error, variants: [] };
}

/** The scenarios --all runs: the shipped catalogue, or every scenario file of --dir (all checked before any runs). */
async function catalogue(dir: string | undefined): Promise<Scenario[]> {
  if (dir === undefined) return listScenarios();
  const path = resolve(dir);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new NotFoundError(`scenario directory not found: ${dir}`);
  if (!info.isDirectory()) throw new UsageError(`--dir ${dir} is not a directory: give the directory holding your .yaml scenario files`);
  const scenarios = await listScenarios(path);
  if (scenarios.length === 0) throw new UsageError(`no scenario files (.yaml or .yml) in ${dir}`);
  return scenarios;
}

/**
 * Test hook, read from the environment so end-to-end tests can reach it: REDLOCK_CLI_TEST_STALL=3:400
 * blocks the process for 400 ms before step 3 of every attempt (a machine too busy to keep time).
 */
function testStall(env: Readonly<Record<string, string | undefined>>): RunScenarioOptions['stall'] {
  const match = /^(\d+):(\d+)$/.exec(env.REDLOCK_CLI_TEST_STALL ?? '');
  return match ? { step: Number(match[1]), ms: Math.min(Number(match[2]), 10_000) } : undefined;
}

/** The four-letter mark of a scenario's line on stderr, by its exit code. */
const RUN_MARK: Readonly<Record<number, string>> = { [ExitCode.ok]: 'ok  ', [ExitCode.inconclusive]: 'LATE' };

/** Says on stderr that a variant runs again because its timing left the window. */
function retryNote(ctx: CommandContext, scenario: Scenario): RunScenarioOptions['onRetry'] {
  return (variant, attempt, reason) => note(ctx, `${scenario.name} ${variant.name}: inconclusive (${reason}); run ${attempt} of up to ${DEFAULT_ATTEMPTS}`);
}

const live = (ctx: CommandContext, flags: RunFlags): boolean => flags.json !== true && ctx.stdout.isTTY === true;

function keptNote(ctx: CommandContext, sandbox: SandboxHandle | undefined): void {
  if (sandbox) note(ctx, `sandbox "${sandbox.name}" kept running: ${sandboxCommand(sandbox.name, 'status')}; remove it with ${sandboxCommand(sandbox.name, 'down')}`);
}

async function runOne(ctx: CommandContext, scenario: Scenario, flags: RunFlags, speed: number): Promise<number> {
  const variants = chooseVariants(scenario, flags.variant);
  const redisServer = findRedisServer(flags.redisServer, ctx.env);
  let sandbox: SandboxHandle | undefined;
  const base: RunScenarioOptions = {
    variants,
    speed,
    signal: ctx.signal,
    env: ctx.env,
    keepSandbox: flags.keepSandbox,
    redisServer,
    onSandbox: (s) => (sandbox = s),
    stall: testStall(ctx.env),
  };
  let run: ScenarioRun;
  if (live(ctx, flags)) {
    const { mountScenarioRunView } = await import('../../ui/scenario-live.js');
    const view = mountScenarioRunView({ stdout: ctx.stdout, stderr: ctx.stderr, name: scenario.name, title: scenario.title, variantCount: variants?.length ?? scenario.variants.length });
    try {
      run = await runScenario(scenario, {
        ...base,
        onVariantStart: (v) =>
          view.startVariant({
            variant: v.name,
            description: v.description,
            expected: v.expect,
            clients: scenario.clients.map((c) => c.name),
            nodes: sandbox ? laneNodes(sandbox) : [],
            expectedMs: plannedMs(scenario, v.name),
          }),
        onEvent: view.event,
        onRetry: view.restartVariant,
        onVariantEnd: view.finishVariant,
      });
    } finally {
      await view.close();
    }
  } else {
    if (!flags.json) note(ctx, `running ${scenario.name} on a ${scenario.sandbox.topology} sandbox...`);
    run = await runScenario(scenario, { ...base, onRetry: retryNote(ctx, scenario) });
    if (flags.json) printJson(ctx, runJson(run));
    else ctx.stdout.write(safeLine(scenarioRunText(run, Math.max(60, Math.min(ctx.stdout.columns ?? 80, 120)))));
  }
  if (flags.keepSandbox) keptNote(ctx, sandbox);
  if (flags.html !== undefined) await writeReport(ctx, flags.html, (await import('../../core/report/from-history.js')).scenarioReport(run));
  return outcomesExitCode(run.variants.map((v) => v.outcome));
}

async function runAll(ctx: CommandContext, flags: RunFlags, speed: number): Promise<number> {
  if (flags.variant !== 'all') throw new UsageError('--variant picks a variant of one scenario; --all runs every variant of every scenario');
  if (flags.keepSandbox) throw new UsageError('--keep-sandbox keeps the sandbox of one scenario; it does not go with --all');
  const scenarios = await catalogue(flags.dir);
  // Found once, before any scenario starts: a wrong path is one usage error, not a failure per scenario.
  const redisServer = findRedisServer(flags.redisServer, ctx.env);
  const rows: SummaryRow[] = [];
  // One entry per scenario, in catalogue order: a run's JSON, or the error that stopped it.
  const results: unknown[] = [];
  const view = live(ctx, flags) ? (await import('../../ui/scenario-live.js')).mountScenarioAllView({ stdout: ctx.stdout, stderr: ctx.stderr, names: scenarios.map((s) => s.name) }) : undefined;
  try {
    for (const scenario of scenarios) {
      const started = performance.now();
      view?.startScenario(scenario.name, scenario.variants.length);
      try {
        const run = await runScenario(scenario, {
          speed,
          signal: ctx.signal,
          env: ctx.env,
          redisServer,
          onVariantStart: (v, i) => view?.startVariant(scenario.name, v.name, i),
          ...(view ? {} : { onRetry: retryNote(ctx, scenario) }),
        });
        const durationMs = Math.round(performance.now() - started);
        results.push(runJson(run));
        rows.push({ name: run.name, variants: run.variants.map((v) => ({ variant: v.variant, outcome: v.outcome })), durationMs });
        view?.finishScenario(run, durationMs);
        if (!view && !flags.json) note(ctx, `${RUN_MARK[outcomesExitCode(run.variants.map((v) => v.outcome))] ?? 'FAIL'}  ${scenario.name} (${(durationMs / 1000).toFixed(1)} s)`);
      } catch (err) {
        if (ctx.signal?.aborted) throw err;
        const message = err instanceof Error ? err.message : String(err);
        rows.push({ name: scenario.name, error: message });
        results.push(failedJson(scenario, message));
        view?.failScenario(scenario.name, message);
        if (!view) note(ctx, `FAIL  ${scenario.name}: ${message}`);
      }
    }
  } finally {
    await view?.close();
  }
  if (flags.json) printJson(ctx, results);
  else if (!view) for (const line of summaryTable(rows, Math.min(ctx.stdout.columns ?? 80, 120))) print(ctx, line);
  if (rows.some((r) => r.error !== undefined)) return ExitCode.verdictMismatch;
  return outcomesExitCode(rows.flatMap((r) => r.variants!.map((v) => v.outcome)));
}

/** `scenario run <name|file>` or `scenario run --all`: the exit code says whether every verdict was as expected. */
export async function runScenarioCommand(ctx: CommandContext, nameOrPath: string | undefined, flags: RunFlags): Promise<number> {
  const speed = parseSpeed(flags.speed);
  if (flags.dir !== undefined && !flags.all) throw new UsageError('--dir names the directory --all runs; to run one file, give its path: redlock-cli scenario run ./my-race.yaml');
  if (flags.html !== undefined && flags.all) throw new UsageError('--html writes the page of one scenario run; it does not go with --all');
  if (flags.html !== undefined) await checkReportPath(flags.html);
  if (flags.all) return runAll(ctx, flags, speed);
  return runOne(ctx, await resolveScenario(nameOrPath!), flags, speed);
}
