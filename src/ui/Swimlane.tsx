import { Box, Text } from 'ink';
import { rasterize, type ClientCell, type NodeCell } from '../core/scenario/timeline-raster.js';
import { legendItems, SEVERAL_HOLDERS, UNKNOWN_HOLDER, VIOLATION, type LaneGlyphs } from '../core/scenario/timeline-legend.js';
import { clientCodes, markGlyph, TEXT_GLYPHS } from '../core/scenario/timeline-text.js';
import { laneLabel, laneLabelWidth } from '../core/scenario/lane-label.js';
import { wrapItems } from '../core/text-layout.js';
import type { ClientState, Lanes, MarkKind, NodeFault } from '../core/scenario/timeline.js';

export interface SwimlaneProps {
  readonly lanes: Lanes;
  /** Terminal columns the chart may use; lanes are cut to fit, never wrapped. */
  readonly width: number;
  /** Time the axis spans; by default the lanes' end. A live view passes a round span ahead of now. */
  readonly spanMs?: number;
  /** Draw the cursor where the run is now (the lanes' end). */
  readonly live?: boolean;
}

interface Style {
  readonly char: string;
  readonly color?: string;
  readonly backgroundColor?: string;
  readonly bold?: boolean;
  readonly dimColor?: boolean;
}

// Colours a client's name and its letter on the node lanes, so the two are easy to connect.
export const CLIENT_COLORS = ['cyan', 'magenta', 'blue', 'yellowBright', 'greenBright', 'redBright'] as const;

const STATE_STYLE: Readonly<Record<ClientState, Style>> = {
  idle: { char: ' ' },
  waiting: { char: '·', color: 'yellow' },
  holding: { char: '━', color: 'green' },
  'in-section': { char: '█', color: 'cyan' },
  paused: { char: '░', color: 'yellow' },
  crashed: { char: '×', color: 'red' },
};
const FAULT_STYLE: Readonly<Record<NodeFault, Style>> = {
  killed: { char: '×', color: 'red' },
  paused: { char: '░', color: 'yellow' },
  partitioned: { char: '~', color: 'magenta' },
  blind: { char: '┄', color: 'gray' },
};
const MARK_COLOR: Readonly<Partial<Record<MarkKind, string>>> = {
  'write-ok': 'green',
  'write-rejected': 'yellow',
  incr: 'green',
  lost: 'red',
  'release-fail': 'red',
  'acquire-fail': 'yellow',
  'renew-ok': 'gray',
  'renew-fail': 'red',
  fault: 'yellow',
  'fault-fail': 'red',
};
/** The swimlane's glyphs (marks as in the text chart); its legend is built from them. */
export const SWIMLANE_GLYPHS: LaneGlyphs = {
  state: Object.fromEntries(Object.entries(STATE_STYLE).map(([state, style]) => [state, style.char])) as LaneGlyphs['state'],
  fault: Object.fromEntries(Object.entries(FAULT_STYLE).map(([fault, style]) => [fault, style.char])) as LaneGlyphs['fault'],
  mark: TEXT_GLYPHS.mark,
};
const BLANK: Style = { char: ' ' };
/** Where a live run is now; named in the legend as such. */
export const CURSOR_CHAR = '│';
const CURSOR: Style = { char: CURSOR_CHAR, dimColor: true };

function markStyle(kind: MarkKind | undefined): Style | undefined {
  const char = markGlyph(kind);
  if (char === undefined || kind === undefined) return undefined;
  const color = MARK_COLOR[kind];
  return { char, bold: true, ...(color ? { color } : {}) };
}

function clientStyle(cell: ClientCell | undefined): Style {
  if (!cell) return BLANK;
  const base = markStyle(cell.mark) ?? STATE_STYLE[cell.state];
  // Inside the section without the lock: the section colour turns red.
  const style = cell.state === 'in-section' && !cell.holds && !cell.mark ? { ...base, color: 'red' } : base;
  return cell.violation ? { ...style, backgroundColor: 'red' } : style;
}

function nodeStyle(cell: NodeCell | undefined, codes: ReadonlyMap<string, string>, colors: ReadonlyMap<string, string>): Style {
  if (!cell) return BLANK;
  if (cell.fault) return FAULT_STYLE[cell.fault];
  const mark = markStyle(cell.mark);
  if (mark) return mark;
  if (cell.holders.length > 1) return { char: SEVERAL_HOLDERS, color: 'red', bold: true };
  const holder = cell.holders[0];
  if (holder === undefined) return BLANK;
  const code = codes.get(holder);
  const color = colors.get(holder);
  return code === undefined ? { char: UNKNOWN_HOLDER, color: 'yellow' } : { char: code, ...(color ? { color } : {}) };
}

/** Adjacent cells drawn alike become one <Text>, so a lane is a handful of nodes, not 80. */
function Bar({ cells }: { readonly cells: readonly Style[] }) {
  const runs: { key: string; look: Omit<Style, 'char'>; text: string }[] = [];
  for (const { char, ...look } of cells) {
    const key = JSON.stringify(look);
    const last = runs[runs.length - 1];
    if (last?.key === key) last.text += char;
    else runs.push({ key, look, text: char });
  }
  return (
    <Text wrap="truncate">
      {runs.map(({ look, text }, i) => (
        <Text key={i} {...look}>
          {text}
        </Text>
      ))}
    </Text>
  );
}

/** One row per client, then per node, an axis above and the violation windows below. */
export function Swimlane({ lanes, width, spanMs, live = false }: SwimlaneProps) {
  const names = [...lanes.clients.map((l) => l.name), ...lanes.nodes.map((l) => l.name)];
  const labelWidth = laneLabelWidth(names);
  // One column spare: a line exactly as wide as the terminal wraps on some of them.
  const barWidth = Math.max(10, width - labelWidth - 1);
  const span = spanMs ?? Math.max(lanes.end, 1);
  const raster = rasterize(lanes, barWidth, span);
  const clientNames = lanes.clients.map((l) => l.name);
  const codes = clientCodes(clientNames);
  const colors = new Map(clientNames.map((n, i) => [n, CLIENT_COLORS[i % CLIENT_COLORS.length]!]));
  const cursorCol = live ? Math.floor((lanes.end / span) * barWidth) + 1 : -1;
  const withCursor = (styles: Style[]): Style[] => styles.map((s, i) => (i === cursorCol && s === BLANK ? CURSOR : s));

  const axis = Array.from({ length: barWidth }, () => ' ');
  for (const { col, label } of raster.ticks) [...label].forEach((ch, i) => (axis[col + i] = ch));
  const clientRows = raster.clients.map((l) => withCursor(l.cells.map(clientStyle)));
  const nodeRows = raster.nodes.map((l) => withCursor(l.cells.map((c) => nodeStyle(c, codes, colors))));
  const violated = raster.violations.some((v) => v !== undefined);
  const used = new Set([...clientRows, ...nodeRows].flatMap((r) => r.map((s) => s.char)));
  if (violated) used.add(VIOLATION);
  const label = (text: string) => laneLabel(text, labelWidth);
  const now = used.has(CURSOR_CHAR) ? [`${CURSOR_CHAR} now`] : [];
  const legend = wrapItems(label(''), [...legendItems(SWIMLANE_GLYPHS, used, codes), ...now], width - 1);
  return (
    <Box flexDirection="column" width={width}>
      <Text dimColor wrap="truncate">
        {label('s')}
        {axis.join('').trimEnd()}
      </Text>
      {raster.clients.map((l, i) => (
        <Box key={`c-${l.name}`}>
          <Text color={colors.get(l.name) ?? 'white'} bold>
            {label(l.name)}
          </Text>
          <Bar cells={clientRows[i]!} />
        </Box>
      ))}
      {raster.nodes.map((l, i) => (
        <Box key={`n-${l.name}`}>
          <Text dimColor>{label(l.name)}</Text>
          <Bar cells={nodeRows[i]!} />
        </Box>
      ))}
      {violated && (
        <Box>
          <Text color="red" bold>
            {label('!')}
          </Text>
          <Bar cells={raster.violations.map((v) => (v ? { char: VIOLATION, color: 'red', bold: true } : BLANK))} />
        </Box>
      )}
      {legend.map((line, i) => (
        <Text key={`legend-${i}`} dimColor wrap="truncate">
          {line}
        </Text>
      ))}
    </Box>
  );
}
