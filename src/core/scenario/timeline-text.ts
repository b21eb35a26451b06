// The plain text timeline `scenario run` prints when stdout is not a terminal: a lane chart at
// most 80 columns wide, the events in time order and the verdict, without colour, so it reads the
// same in a pipe, a CI log or a bug report.

import type { History } from './history.js';
import type { ScenarioRun, VariantRun } from './run.js';
import { eventLines, seconds } from './timeline-events.js';
import { rasterize, type ClientCell, type NodeCell, type Raster } from './timeline-raster.js';
import type { Outcome } from './timing.js';
import { deriveLanes, type ClientState, type Lanes, type MarkKind, type NodeFault } from './timeline.js';
import { VIOLATION_KINDS, violationKinds, type ViolationKind } from './verdict.js';
import { displayWidth, wrapItems, wrapText } from '../text-layout.js';
import { laneLabel, laneLabelWidth, laneName } from './lane-label.js';
import { legendItems, SEVERAL_HOLDERS, UNKNOWN_HOLDER, VIOLATION, type LaneGlyphs } from './timeline-legend.js';

export const TEXT_WIDTH = 80;

const STATE_GLYPH: Readonly<Record<ClientState, string>> = { idle: ' ', waiting: '.', holding: '=', 'in-section': '#', paused: 'z', crashed: 'x' };
const FAULT_GLYPH: Readonly<Record<NodeFault, string>> = { killed: 'x', paused: 'z', partitioned: '~', blind: '-' };
const MARK_GLYPH: Readonly<Partial<Record<MarkKind, string>>> = {
  'write-ok': 'w',
  'write-rejected': 'r',
  incr: '+',
  lost: 'L',
  'release-fail': 'f',
  'acquire-fail': 'n',
  'renew-ok': '^',
  'renew-fail': 'v',
  fault: '*',
  'fault-fail': '*',
};
/** The text chart's glyphs; its legend is built from them (timeline-legend.ts). */
export const TEXT_GLYPHS: LaneGlyphs = { state: STATE_GLYPH, fault: FAULT_GLYPH, mark: MARK_GLYPH };

/** One character per client for the node lanes: the name itself, its initial, or its position. */
export function clientCodes(clients: readonly string[]): Map<string, string> {
  const initials = clients.map((c) => (c.length === 1 ? c : c.charAt(0).toUpperCase()));
  const unique = new Set(initials).size === initials.length;
  return new Map(clients.map((c, i) => [c, unique ? initials[i]! : String((i + 1) % 10)]));
}

/** The letter a mark is drawn with on a lane, if it is drawn at all. */
export function markGlyph(kind: MarkKind | undefined): string | undefined {
  return kind === undefined ? undefined : MARK_GLYPH[kind];
}

/** The glyph of a client cell (a mark wins over the state under it). */
export function clientGlyph(cell: ClientCell | undefined): string {
  if (!cell) return ' ';
  return (cell.mark && MARK_GLYPH[cell.mark]) ?? STATE_GLYPH[cell.state];
}

/** The glyph of a node cell: a lasting fault, else a mark, else who holds the lock there. */
export function nodeGlyph(cell: NodeCell | undefined, codes: ReadonlyMap<string, string>): string {
  if (!cell) return ' ';
  if (cell.fault) return FAULT_GLYPH[cell.fault];
  if (cell.mark && MARK_GLYPH[cell.mark]) return MARK_GLYPH[cell.mark]!;
  if (cell.holders.length > 1) return SEVERAL_HOLDERS;
  if (cell.holders.length === 1) return codes.get(cell.holders[0]!) ?? UNKNOWN_HOLDER;
  return ' ';
}

/** Axis, one row per lane, the violation row and a legend, no line wider than `width`. */
export function chartLines(lanes: Lanes, width = TEXT_WIDTH): string[] {
  const names = [...lanes.clients.map((l) => l.name), ...lanes.nodes.map((l) => l.name)];
  const labelWidth = laneLabelWidth(names);
  const raster = rasterize(lanes, Math.max(10, width - labelWidth));
  const codes = clientCodes(lanes.clients.map((l) => l.name));
  const label = (text: string) => laneLabel(text, labelWidth);
  const rows = [
    ...raster.clients.map((l) => label(l.name) + l.cells.map(clientGlyph).join('')),
    ...raster.nodes.map((l) => label(l.name) + l.cells.map((c) => nodeGlyph(c, codes)).join('')),
  ];
  if (raster.violations.some((v) => v !== undefined)) rows.push(label('!') + raster.violations.map((v) => (v ? VIOLATION : ' ')).join(''));
  const used = new Set(rows.flatMap((r) => [...r.slice(labelWidth)]));
  return [
    label('sec') + axisText(raster),
    ...rows.map((r) => r.trimEnd()),
    ...wrapItems('legend: ', legendItems(TEXT_GLYPHS, used, codes), width),
  ];
}

function axisText(raster: Raster): string {
  const chars = Array.from({ length: raster.width }, () => ' ');
  for (const { col, label } of raster.ticks) [...label].forEach((ch, i) => (chars[col + i] = ch));
  return chars.join('').trimEnd();
}

/** The events of a history, one per line (wrapped under their text): `  0.41 s  B  acquire ok`. */
export function eventListLines(history: History, width = TEXT_WIDTH): string[] {
  const lines = eventLines(history);
  const laneWidth = Math.min(8, Math.max(1, ...lines.map((l) => displayWidth(l.lane))));
  return lines.flatMap((l) => wrapText(l.text, width, { head: `${seconds(l.t).padStart(8)}  ${laneName(l.lane, laneWidth)}  ` }));
}

/** `safe`, or the kinds joined in catalogue order: `stale-holder, stale-write`. */
export function kindsText(kinds: readonly ViolationKind[]): string {
  return kinds.length === 0 ? 'safe' : VIOLATION_KINDS.filter((k) => kinds.includes(k)).join(', ');
}

/** `at 1.62 s`, or `1.10-1.70 s`. */
export function windowText(from: number, to: number): string {
  return to <= from ? `at ${seconds(from)}` : `${seconds(from).replace(' s', '')}-${seconds(to)}`;
}

/** Expected against found, then each violation's window and message. */
export function verdictLines(run: VariantRun, width = TEXT_WIDTH): string[] {
  const found = kindsText(violationKinds(run.verdict));
  const judged = run.outcome === 'inconclusive' ? 'INCONCLUSIVE' : run.outcome === 'as-expected' ? 'as expected' : 'NOT AS EXPECTED';
  const head = `verdict: expected ${kindsText(run.expected)}, found ${found}: ${judged}`;
  const why = run.timing.inconclusive;
  const tries = run.attempts > 1 ? ` after ${run.attempts} runs` : '';
  return [
    ...wrapText(head, width, { indent: '  ' }),
    ...(why !== undefined
      ? wrapText(`inconclusive${tries}: ${why}. The verdict says nothing either way: run it again on a quieter machine`, width, { head: '  ? ', indent: '    ' })
      : []),
    ...run.verdict.violations.flatMap((v) => {
      const who = v.clients.length > 0 ? ` (${v.clients.join(', ')})` : '';
      return wrapText(v.message, width, { head: `  ! ${v.kind} ${windowText(v.from, v.to)}${who}: `, indent: '    ' });
    }),
  ];
}

/** One variant: a header, its chart, its events and its verdict. */
export function variantTextLines(run: VariantRun, width = TEXT_WIDTH): string[] {
  const lanes = deriveLanes(run.history, { violations: run.verdict.violations });
  return [
    ...wrapText(`${run.description} (expect ${kindsText(run.expected)}, ran ${seconds(run.durationMs)})`, width, { head: `variant ${run.variant}: `, indent: '  ' }),
    '',
    ...chartLines(lanes, width),
    '',
    ...eventListLines(run.history, width),
    '',
    ...verdictLines(run, width),
  ];
}

/** The four-letter mark of a variant's outcome in the run's closing lines. */
const OUTCOME_MARK: Readonly<Record<Outcome, string>> = { 'as-expected': 'ok  ', 'not-as-expected': 'FAIL', inconclusive: 'LATE' };

/** The whole run for a pipe: title, every variant, and one line per variant at the end. */
export function scenarioRunText(run: ScenarioRun, width = TEXT_WIDTH): string {
  const nameWidth = Math.max(...run.variants.map((v) => v.variant.length));
  const lines = [
    ...wrapText(run.title, width, { head: `${run.name}: `, indent: '  ' }),
    ...run.variants.flatMap((v) => ['', ...variantTextLines(v, width)]),
    '',
    ...run.variants.flatMap((v) =>
      wrapText(`expected ${kindsText(v.expected)}, found ${kindsText(violationKinds(v.verdict))}`, width, {
        head: `${OUTCOME_MARK[v.outcome]}  ${v.variant.padEnd(nameWidth)}  `,
      }),
    ),
  ];
  return `${lines.join('\n')}\n`;
}
