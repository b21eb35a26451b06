import { NotFoundError, UsageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import type { TraceEvent } from '../../core/trace/events.js';
import { incidentScenario } from '../../core/trace/incident-scenario.js';
import { inferIncident, parseMoment, type IncidentPick } from '../../core/trace/incident.js';
import { inferRedlockIncident } from '../../core/trace/redlock-scenario.js';
import { safeLine } from '../../core/terminal-text.js';
import { replayFile } from '../../trace/replay.js';
import { writeScenarioFile } from '../../scenario/write-scenario.js';
import { note, print, type CommandContext } from '../context.js';

export interface ScenarioFlags {
  readonly scenario: string;
  readonly at?: string;
  readonly finding?: string;
}

/**
 * `trace --from FILE --scenario OUT.yaml`: reads the recording, infers the incident behind one
 * unsafe finding (the first, `--finding N`, or the one at `--at TIME`) and writes the scenario that
 * replays it. Exit 4 when the recording has no such finding or its fault cannot be inferred.
 */
export async function traceToScenario(ctx: CommandContext, file: string, wants: (lock: string) => boolean, flags: ScenarioFlags): Promise<number> {
  const number = flags.finding === undefined ? undefined : Number(flags.finding);
  if (number !== undefined && !(Number.isInteger(number) && number >= 1)) throw new UsageError(`--finding takes the number of an unsafe finding, 1 for the first: got "${flags.finding}"`);
  const events: TraceEvent[] = [];
  const session = await replayFile({ file, wants, onEvents: (shown) => void events.push(...shown) });
  const pick: IncidentPick = number !== undefined ? { finding: number } : flags.at !== undefined ? { at: moment(flags.at, events[0]?.t) } : {};
  const nodes = session.opts.redlockNodes;
  if (nodes) return redlockScenario(ctx, inferRedlockIncident(events, session.findings, nodes, file, pick), flags.scenario);
  const result = inferIncident(events, session.findings, pick);
  if (!result.ok) throw new NotFoundError(`trace --scenario: ${result.problem}`);
  const { incident } = result;
  const scenario = await writeScenarioFile(incidentScenario(incident, file), flags.scenario);
  note(ctx, safeLine(`trace: ${incident.finding.unsafe ? 'unsafe' : 'liveness'} finding ${incident.number} (${incident.finding.kind} on ${incident.lock}): the fault is ${incident.fault.replaceAll('-', ' ')}`));
  print(ctx, safeLine(`wrote ${flags.scenario}: variants ${scenario.variants.map((v) => v.name).join(', ')}; run it with: redlock-cli scenario run ${flags.scenario}`));
  return ExitCode.ok;
}

/** A recording of Redlock nodes: a majority's finding, replayed with its fault (on the node both majorities counted, if any). */
async function redlockScenario(ctx: CommandContext, result: ReturnType<typeof inferRedlockIncident>, out: string): Promise<number> {
  if (!result.ok) throw new NotFoundError(`trace --scenario: ${result.problem}`);
  const { incident } = result;
  const scenario = await writeScenarioFile(incident.spec, out);
  const what = incident.node === undefined ? `${incident.finding.kind} of a Redlock majority` : 'overlap of two Redlock majorities';
  note(ctx, safeLine(`trace: unsafe finding ${incident.number} (${what} on ${incident.finding.lock}): the fault is ${incident.fault.replaceAll('-', ' ')}${incident.node === undefined ? '' : ` on ${incident.node}`}`));
  print(ctx, safeLine(`wrote ${out}: variants ${scenario.variants.map((v) => v.name).join(', ')}; run it with: redlock-cli scenario run ${out}`));
  return ExitCode.ok;
}

function moment(text: string, first: number | undefined): number {
  if (first === undefined) throw new NotFoundError('trace --scenario: the recording has no lock events: nothing to replay');
  const t = parseMoment(text, first);
  if (t === undefined) throw new UsageError(`--at takes a time as trace prints it (14:03:07.250, UTC) or an ISO date and time (2026-11-28T14:03:07Z): got "${text}"`);
  return t;
}
