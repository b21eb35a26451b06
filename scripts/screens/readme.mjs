// The README's screen blocks and how two captures of the same screen are compared. A block sits
// between `<!-- screen:<name> -->` and `<!-- /screen:<name> -->` as a fenced ```text block.
//
// Two real runs never draw the same characters: times, ids, ports and the lengths of bars and
// swimlane segments change. normaliseScreen() keeps what a reader relies on (which lines appear
// in which order, their labels, indentation, the order of states along a lane) and drops what
// legitimately varies, so a change of layout, labels or lanes still shows as a difference.

const open = (name) => `<!-- screen:${name} -->`;
const close = (name) => `<!-- /screen:${name} -->`;

/** A capture as stored: trailing spaces trimmed, no trailing blank lines, one final newline. */
export function tidyCapture(text) {
  const lines = text.split('\n').map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return `${lines.join('\n')}\n`;
}

/** The text inside a screen's fenced block in the README, or undefined when it has no such block. */
export function readmeBlock(readme, name) {
  const start = readme.indexOf(open(name));
  const end = readme.indexOf(close(name));
  if (start < 0 || end < start) return undefined;
  const inner = readme.slice(start + open(name).length, end);
  const fenced = /^\s*```text\n([\s\S]*?)```\s*$/.exec(inner);
  return fenced ? fenced[1] : undefined;
}

/** The README with a screen's block replaced by `capture`; throws when the markers are missing. */
export function replaceBlock(readme, name, capture) {
  const start = readme.indexOf(open(name));
  const end = readme.indexOf(close(name));
  if (start < 0 || end < start) throw new Error(`README.md has no ${open(name)} ... ${close(name)} markers`);
  return `${readme.slice(0, start)}${open(name)}\n\`\`\`text\n${tidyCapture(capture)}\`\`\`\n${readme.slice(end)}`;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const HEX = /\b[0-9a-f]{16,}\b/g; // tokens (node-redlock's values, our token locks)
const SHORT_OWNER = /\b[0-9a-f]{1,8}…/g; // trace's short owners: the first 8 hex digits of a uuid or token
// formatDuration's shapes: 850 ms, 4.2 s, 3 m 05 s, 2 h 10 m
const DURATION = /-?\d+(?:\.\d+)? (?:ms|s|m|h)\b(?: \d+ [sm]\b)?/g;
const NUMBER = /\d+(?:\.\d+)?/g;
// Bars and sparklines: their length and level are time, and so is whether they have a cell at all.
const BAR = /[▁▂▃▄▅▆▇█░]+/g;
// A swimlane row: a client or node name, then only lane glyphs (states, marks, holders' letters).
const LANE = /^(\S{1,8}) +([·━█░×~│&?!*^+wrLfnvA-Z ]+)$/u;

/**
 * A lane keeps its name and which glyphs it draws (sorted), not where: how many columns a state
 * lasts, the gaps between holders and brief states a column wide (a quick acquire's wait, a
 * moment of holding before a resumed write) come and go with the machine's timing. The waiting
 * dot is left out for the same reason; the legend under the lanes still lists it.
 */
function normaliseLane(line) {
  const lane = LANE.exec(line);
  if (!lane) return undefined;
  const glyphs = [...new Set(lane[2].replace(/[\s·]/g, ''))].sort().join('');
  // A lane named after a client's port (trace) changes with every run.
  return `${lane[1].replace(/^:\d+$/, ':#')} ${glyphs}`;
}

/**
 * One screen line reduced to what must not change between runs: ids, durations and numbers become
 * placeholders, runs of one character (bar cells, box rules) become one, and the spaces inside a
 * line (column padding that follows the width of a time or id) become one. Indentation is kept.
 */
function normaliseLine(line) {
  const lane = normaliseLane(line);
  if (lane !== undefined) return lane;
  const indent = /^ */.exec(line)[0];
  let body = line
    .slice(indent.length)
    .replace(UUID, 'U')
    .replace(HEX, 'T')
    .replace(SHORT_OWNER, 'O…')
    .replace(DURATION, 'D')
    .replace(NUMBER, '#')
    // A bar is dropped, not kept as one cell: its length is time, and a share that rounds to no
    // cell (the quietest race client on a busy machine) draws no bar at all. A lone ░ is the
    // legend's "paused", not a bar.
    .replace(BAR, (run) => (run === '░' ? run : ''))
    .replace(/(\S)\1+/gu, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  // The swimlane's axis: how many ticks fit depends on how long the run took.
  body = body.replace(/(^| )#(?: #)+(?= |$)/g, '$1#');
  return body === '' ? '' : indent + body;
}

/** A whole capture normalised line by line (see normaliseLine); blank lines are kept. */
export function normaliseScreen(text) {
  return tidyCapture(text).split('\n').map(normaliseLine).join('\n');
}
