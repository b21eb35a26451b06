// The end of a race on stdout: a summary table for people, or one JSON object with every figure
// and the recorded history of each key.

import { formatDuration } from '../../core/duration.js';
import { describePlan, type RaceTarget } from '../../core/race/plan.js';
import { atNode, describeEndpoint, endpointUrl, type Endpoint } from '../../core/endpoint.js';
import { formatWait, sparkline } from '../../core/race/stats.js';
import { violationKinds } from '../../core/scenario/verdict.js';
import type { RaceResult } from '../../race/run.js';
import { FALLBACK_WIDTH, wrapText } from '../../core/text-layout.js';

/** Violations listed in the text summary; --json has them all. */
const SHOWN_VIOLATIONS = 5;

const ms = formatWait;
const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;

/**
 * What the counter says beside the increments the clients saw complete. Above them is no fault:
 * a client killed by --chaos kill-holder after its write reached the server never saw the reply.
 */
export function counterNote(counter: number, increments: number): string {
  if (counter === increments) return '(none lost)';
  if (counter < increments) return `(${increments - counter} lost)`;
  const extra = counter - increments;
  return `(none lost; ${extra} more landed without ${extra === 1 ? 'its' : 'their'} reply: a client crashed mid-increment)`;
}

/** Lines of the summary table (label, then its figures), wrapped to `width` under the figures. */
export function raceSummary(r: RaceResult, width = FALLBACK_WIDTH): string[] {
  const row = (label: string, text: string): string[] => wrapText(text, width, { head: `  ${label.padEnd(14)} ` });
  const lines = [
    ...wrapText(raceTitle(r), width, { indent: '  ' }),
    ...wrapText(describePlan(r.plan).join(' · '), width, { head: '  ', indent: '    ' }),
    '',
    ...raceFigures(r, (acquisitions) => Math.max(10, Math.min(60, width - 17 - acquisitions.length - 2))).flatMap(([label, text]) => row(label, text)),
  ];
  for (const v of r.violations.slice(0, SHOWN_VIOLATIONS)) lines.push(...row('', `${v.kind}${r.keys.length > 1 ? ` on ${v.key}` : ''}: ${v.message}`));
  if (r.violations.length > SHOWN_VIOLATIONS) lines.push(...row('', `... ${r.violations.length - SHOWN_VIOLATIONS} more (--json lists them all)`));
  return lines;
}

/** `race orders against a single sandbox (interrupted)`. */
export function raceTitle(r: RaceResult): string {
  return `race ${r.plan.keys.join(', ')} against ${r.target}${r.interrupted ? ' (interrupted)' : ''}`;
}

/** The summary's figures, label and text; `sparkWidth` says how wide the acquisitions' sparkline may be. */
export function raceFigures(r: RaceResult, sparkWidth: (acquisitions: string) => number): [string, string][] {
  const s = r.stats;
  const acquisitions = `${s.acquisitions} (${s.ratePerSec.toFixed(1)}/s)`;
  const busiest = s.shares[0];
  const quietest = s.shares.at(-1);
  return [
    ['duration', formatDuration(r.elapsedMs)],
    ['acquisitions', `${acquisitions}  ${sparkline(s.series, sparkWidth(acquisitions))}`],
    ['wait', `p50 ${ms(s.waits.p50)} · p95 ${ms(s.waits.p95)} · p99 ${ms(s.waits.p99)} · max ${ms(s.waits.max)}`],
    ...serverTimedRow(s.serverTimed),
    ['timeouts', `${s.timeouts} waits of ${formatDuration(r.plan.waitMs)} ran out · ${s.errors} errors`],
    [
      'fairness',
      `${s.fairness.toFixed(2)} (Jain's index, 1 = even)${busiest && quietest ? ` · busiest ${busiest.client} ${pct(busiest.share)} · quietest ${quietest.client} ${pct(quietest.share)}` : ''}`,
    ],
    [
      'lost locks',
      `${s.lostLocks} · releases refused (not owner) ${s.notOwner}` +
        `${r.plan.release === 'naive-del' ? ` · naive DELs of another client's lock ${s.foreignDeletes}` : ''}` +
        `${s.crashed > 0 ? ` · clients crashed ${s.crashed}` : ''}`,
    ],
    ...r.keys.map((k): [string, string] => [
      r.keys.length > 1 ? `counter ${k.key}` : 'counter',
      `${k.counter} after ${k.increments} increments ${counterNote(k.counter, k.increments)}` +
        ` · ${k.acquisitions} acquisitions${k.rejectedWrites > 0 ? ` · ${k.rejectedWrites} stale writes fenced off` : ''}`,
    ]),
    ['faults', s.faults.length === 0 ? 'none' : `${s.faults.length}: ${s.faults.slice(0, 3).join('; ')}${s.faults.length > 3 ? '; ...' : ''}`],
    ['harness', harnessLine(r)],
    ['verdict', verdictLine(r)],
  ];
}

/** The waits and holds on the server's clock, as the exporter sees them; no row where nothing was timed. */
function serverTimedRow(t: RaceResult['stats']['serverTimed']): [string, string][] {
  if (!t) return [];
  return [['server clock', `wait p50 ${ms(t.waits.p50)} · p99 ${ms(t.waits.p99)} · hold p50 ${ms(t.holds.p50)} · p99 ${ms(t.holds.p99)}`]];
}

function harnessLine(r: RaceResult): string {
  const h = r.harness;
  const workers = h.workers > 0 ? `; ${h.workers} workers, busiest ${h.workerCpuPctMax.toFixed(0)}% of a core, timers late p99 ${ms(h.workerLoopDelayP99Ms)}` : '';
  const server = h.serverCpuPct !== undefined ? `; Redis ${h.serverCpuPct.toFixed(0)}% of a core` : '';
  const machine = h.machineBusyCores !== undefined && h.machineCores !== undefined ? `; machine ${h.machineBusyCores.toFixed(1)} of ${h.machineCores} cores busy` : '';
  const verdict = h.keptUp ? 'kept up' : (h.reason ?? 'may have been the bottleneck');
  return `race process ${h.cpuPct.toFixed(0)}% of a core, timers late p99 ${ms(h.loopDelayP99Ms)} (max ${ms(h.loopDelayMaxMs)})${workers}${server}${machine}: ${verdict}`;
}

function verdictLine(r: RaceResult): string {
  if (r.violations.length === 0 && r.judgement.outcome === 'inconclusive') return `INCONCLUSIVE: ${r.judgement.reason}`;
  if (r.violations.length === 0) return 'SAFE: no violation found (mutual exclusion, stale holders and writes, lost updates)';
  const kinds = violationKinds({ violations: r.violations }).map((k) => `${k} ${r.violations.filter((v) => v.kind === k).length}`);
  const found = `${r.violations.length} violation${r.violations.length === 1 ? '' : 's'} (${kinds.join(', ')})`;
  if (r.judgement.outcome === 'inconclusive') return `INCONCLUSIVE: ${found}, but ${r.judgement.reason ?? 'the harness ran late'}`;
  return `UNSAFE: ${found}`;
}

/**
 * A URL that reaches the target, its password masked. A URL names one node, so a Cluster's is its
 * first seed's (a URL to a Cluster node is read as that Cluster); `where` names every seed. The
 * endpoint's own host and port are not the Cluster's: with --cluster they are the default's.
 */
function targetUrl(ep: Endpoint): string {
  const seed = ep.clusterNodes?.[0];
  return endpointUrl(seed ? atNode(ep, seed) : ep, 'mask');
}

function maskedTarget(t: RaceTarget): unknown {
  if (t.type !== 'url') return t;
  return { type: t.type, url: targetUrl(t.endpoint), where: describeEndpoint(t.endpoint), ...(t.nodes ? { nodes: t.nodes.map((n) => endpointUrl(n, 'mask')) } : {}) };
}

/** Every figure, each key's verdict and its history, as one JSON value. */

export function raceJson(r: RaceResult): unknown {
  const { shares, keys: _liveKeys, elapsedMs: _snapshotAt, ...stats } = r.stats;
  return {
    // The plan's URLs as given may carry a password: shown masked, like everywhere else.
    plan: { ...r.plan, target: maskedTarget(r.plan.target) },
    target: r.target,
    elapsedMs: r.elapsedMs,
    interrupted: r.interrupted,
    safe: r.judgement.outcome === 'safe',
    outcome: r.judgement.outcome,
    ...(r.judgement.reason !== undefined ? { inconclusive: r.judgement.reason } : {}),
    ...stats,
    shares,
    harness: r.harness,
    violations: r.violations,
    keys: r.keys.map((k) => ({
      key: k.key,
      clients: k.clients,
      acquisitions: k.acquisitions,
      increments: k.increments,
      counter: k.counter,
      register: k.register,
      rejectedWrites: k.rejectedWrites,
      violations: k.verdict.violations,
      history: k.history,
    })),
  };
}
