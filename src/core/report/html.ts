// The incident report as one self-contained HTML file: the page's markup, one inline stylesheet,
// the data as a JSON block and one inline script (page-script.ts). Nothing is fetched: the
// Content-Security-Policy allows only that style and that script, by their hashes, and no
// connection, image, font or frame. Text from Redis reaches the markup only through escapeHtml
// and the data block only through scriptJson, so a key like `</script><img onerror=...>` is text.

import { createHash } from 'node:crypto';
import type { ReportSection, Report } from './model.js';
import { reportTime } from './model.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { CLIENT_STATES } from '../scenario/timeline.js';

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** JSON that cannot close its script element, open a comment or break a line: <, >, & and U+2028/9 as \u escapes. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const CSP = `default-src 'none'; style-src ${hash(PAGE_STYLE)}; script-src ${hash(PAGE_SCRIPT)}; img-src 'none'; base-uri 'none'; form-action 'none'`;
/** Times kept to a tenth of a ms: the data block is most of the file. */
const tenth = (t: number): number => Math.round(t * 10) / 10;

/** The page of a report. */
export function reportHtml(report: Report): string {
  let firstEvent = 1;
  let firstFinding = 1;
  const sections = report.sections.map((section, index) => {
    const data = sectionData(section, firstEvent, firstFinding);
    const markup = sectionHtml(section, index, firstFinding, data.ev.length);
    firstEvent += data.ev.length;
    firstFinding += data.fi.length;
    return { data, markup };
  });
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`${report.title}: ${report.subtitle}`)}</title>`,
    `<style>${PAGE_STYLE}</style></head><body>`,
    `<header><h1>${escapeHtml(report.title)}</h1><p class="sub">${escapeHtml(report.subtitle)}</p>${legendHtml()}</header>`,
    '<noscript><p>The lanes and the event list need JavaScript; the findings and the summary below do not.</p></noscript>',
    '<main>',
    ...sections.map((s) => s.markup),
    summaryHtml(report),
    '</main><div id="tip" role="tooltip" hidden></div>',
    `<script type="application/json" id="report-data">${scriptJson({ sections: sections.map((s) => s.data) })}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** What the script draws, in compact arrays (see page-script.ts for the reading side). */
function sectionData(section: ReportSection, firstEvent: number, firstFinding: number) {
  const { lanes } = section;
  const names = [...lanes.clients.map((l) => l.name), ...lanes.nodes.map((l) => l.name)];
  const kinds: string[] = [...lanes.clients.map(() => 'client'), ...lanes.nodes.map(() => 'node')];
  const index = new Map(names.map((name, i) => [name, i]));
  // Events on a lane of their own (a scenario's notes, the end, a trace's server events) get one.
  const laneIndex = (name: string): number => {
    let i = index.get(name);
    if (i === undefined) {
      i = names.push(name) - 1;
      kinds.push('other');
      index.set(name, i);
    }
    return i;
  };
  const ev = section.events.map((e) => [tenth(e.t), laneIndex(e.lane), e.tone, e.text, e.detail] as const);
  const fi = lanes.violations.map((v) => [tenth(v.from), tenth(v.to), v.kind, v.message, v.clients.filter((c) => index.has(c)).map((c) => index.get(c)!)] as const);
  const perLane = names.map((n, i) => {
    const client = lanes.clients[i];
    const node = lanes.nodes[i - lanes.clients.length];
    return {
      n,
      k: kinds[i]!,
      s: (client?.segments ?? []).filter((s) => s.state !== 'idle').map((s) => [tenth(s.from), tenth(s.to), CLIENT_STATES.indexOf(s.state), s.holds ? 1 : 0]),
      h: (node?.holders ?? []).map((h) => [tenth(h.from), tenth(h.to), `${h.holders.join(', ')}${h.ttlMs === -1 ? ' (no TTL)' : ''}`]),
      f: (node?.faults ?? []).map((f) => [tenth(f.from), tenth(f.to), f.fault, f.open ? 1 : 0]),
    };
  });
  return { origin: section.originMs ?? null, end: tenth(lanes.end), firstEvent, firstFinding, lanes: perLane, ev, fi };
}

function sectionHtml(section: ReportSection, index: number, firstFinding: number, events: number): string {
  const findings = section.lanes.violations;
  const list =
    findings.length === 0
      ? '<p>No findings.</p>'
      : `<ol class="findings" start="${firstFinding}">${findings
          .map((f, i) => {
            const id = `finding-${firstFinding + i}`;
            const window = f.to > f.from ? `${reportTime(section, f.from)} – ${reportTime(section, f.to)}` : reportTime(section, f.from);
            const who = f.clients.length > 0 ? ` (${escapeHtml(f.clients.join(', '))})` : '';
            return `<li id="${id}"><a href="#${id}"><b>${escapeHtml(f.kind)}</b></a> ${escapeHtml(window)}${who}: ${escapeHtml(f.message)}</li>`;
          })
          .join('')}</ol>`;
  return [
    `<section class="report-section" data-section="${index}">`,
    `<h2>${escapeHtml(section.title)}</h2>`,
    section.note !== undefined ? `<p class="note">${escapeHtml(section.note)}</p>` : '',
    '<div class="controls"><button type="button" data-act="out" title="zoom out (-)">−</button><button type="button" data-act="in" title="zoom in (+)">+</button>',
    '<button type="button" data-act="left" title="earlier (←)">◀</button><button type="button" data-act="right" title="later (→)">▶</button>',
    '<button type="button" data-act="reset" title="whole history (0)">all</button><span class="window"></span>',
    '<span>wheel: zoom · shift+wheel or drag: pan · keys + − ← → 0</span></div>',
    `<div class="timeline" tabindex="0" aria-label="lanes of ${escapeHtml(section.title)}"></div>`,
    `<h3>Findings</h3>${list}`,
    `<details class="events"${events <= 500 ? ' open' : ''}><summary>Events (${events})</summary>`,
    '<table class="events"><thead><tr><th>#</th><th>time</th><th>lane</th><th>event</th></tr></thead><tbody></tbody></table></details>',
    '</section>',
  ].join('\n');
}

function legendHtml(): string {
  const items: [string, string][] = [
    ['waiting', 'waiting'],
    ['holding', 'holding'],
    ['in-section', 'in the critical section'],
    ['paused', 'paused'],
    ['crashed', 'crashed'],
    ['held', 'server: held by'],
    ['killed', 'node killed'],
    ['partitioned', 'node partitioned'],
    ['blind', 'trace blind on a node'],
    ['finding', 'finding window'],
  ];
  return `<p class="legend">${items.map(([cls, text]) => `<span><i class="lg-${cls}"></i>${text}</span>`).join('')}<span>▮ event (hover for detail, click to link)</span></p>`;
}

function summaryHtml(report: Report): string {
  const tables = report.tables.map(
    (t) =>
      `<h3>${escapeHtml(t.caption)}</h3><table class="summary-table"><thead><tr>${t.head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${t.rows
        .map((r) => `<tr>${r.map((c) => `<td class="text">${escapeHtml(c)}</td>`).join('')}</tr>`)
        .join('')}</tbody></table>`,
  );
  const notes = report.notes.map((n) => `<p>${escapeHtml(n)}</p>`);
  return ['<section class="summary"><h2>Summary</h2>', ...tables, ...notes, '</section>'].join('\n');
}
