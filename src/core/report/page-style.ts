// The report page's one stylesheet, inlined (the page loads nothing). Lanes are rows of their own
// so a printed page breaks between lanes, never through one; print drops the controls and hover
// card and uses the paper's whole width (the lanes are drawn in percentages, so they follow).

export const PAGE_STYLE = `
:root { color-scheme: light; --fg: #1d1f23; --muted: #666b73; --line: #d5d8dd; --bg: #fff; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1400px; padding: 16px 20px 40px; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 22px; margin: 0 0 2px; } h2 { font-size: 18px; margin: 28px 0 4px; } h3 { font-size: 15px; margin: 16px 0 4px; }
.sub, .note { color: var(--muted); margin: 0 0 8px; overflow-wrap: anywhere; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 8px 0; font-size: 12px; color: var(--muted); }
.legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; border: 1px solid #0002; }
.controls { display: flex; gap: 6px; align-items: center; margin: 8px 0 4px; font-size: 12px; color: var(--muted); }
.controls button { font: inherit; padding: 2px 9px; border: 1px solid var(--line); border-radius: 4px; background: #f6f7f9; cursor: pointer; }
.timeline { border: 1px solid var(--line); border-radius: 4px; cursor: grab; user-select: none; touch-action: none; }
.timeline:focus { outline: 2px solid #4a7bd0; outline-offset: 1px; }
.timeline.dragging { cursor: grabbing; }
.lane { display: flex; border-top: 1px solid #eef0f3; break-inside: avoid; page-break-inside: avoid; }
.lane:first-child { border-top: 0; }
.lane-name { flex: 0 0 170px; padding: 3px 8px; font: 12px/16px ui-monospace, monospace; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-right: 1px solid var(--line); }
.lane.node .lane-name { color: #2457a6; } .lane.other .lane-name { color: var(--muted); }
.lane svg { flex: 1 1 auto; display: block; height: 22px; min-width: 0; }
.axis svg { height: 20px; } .axis text { font: 10px ui-monospace, monospace; fill: var(--muted); }
.axis line { stroke: var(--line); }
.st-waiting, .lg-waiting { fill: #f3d58a; background: #f3d58a; } .st-holding, .lg-holding { fill: #5fb36a; background: #5fb36a; }
.st-in-section, .lg-in-section { fill: #2d7a3a; background: #2d7a3a; } .st-paused, .lg-paused { fill: #a68ad6; background: #a68ad6; }
.st-crashed, .lg-crashed { fill: #555; background: #555; } .held, .lg-held { fill: #9cc0ef; background: #9cc0ef; }
.fault-killed, .lg-killed { fill: #d9534f; background: #d9534f; } .fault-paused { fill: #a68ad6; } .fault-partitioned, .lg-partitioned { fill: #f0a04b; background: #f0a04b; }
.fault-blind, .lg-blind { fill: #c8c8c8; background: #c8c8c8; }
.finding, .lg-finding { fill: #e0303033; stroke: #c02020; stroke-width: 1; background: #e0303033; }
.ev { fill: #333; } .tone-failed { fill: #c62828; } .tone-fault { fill: #e07b00; } .tone-server { fill: #2457a6; } .tone-note { fill: #888; } .tone-end { fill: #000; }
.ev:hover, .ev.hl { stroke: #000; stroke-width: 2; }
.finding.hl { fill: #e0303066; stroke-width: 3; }
ol.findings { padding-left: 24px; margin: 4px 0; } ol.findings li { margin: 3px 0; overflow-wrap: anywhere; }
.hl-row, ol.findings li.hl-row { background: #fff3b0; }
table { border-collapse: collapse; font-size: 12px; margin: 4px 0 10px; }
th, td { border-bottom: 1px solid #eef0f3; padding: 2px 8px; text-align: left; vertical-align: top; }
td.text { overflow-wrap: anywhere; } th { background: #f6f7f9; }
table.events td:first-child a { color: var(--muted); text-decoration: none; }
table.events tr { break-inside: avoid; }
#tip { position: fixed; z-index: 10; max-width: 460px; padding: 6px 9px; background: #fffffb; border: 1px solid #999; border-radius: 4px; box-shadow: 0 2px 8px #0003; font-size: 12px; pointer-events: none; overflow-wrap: anywhere; }
#tip b { display: block; margin-bottom: 3px; } #tip dl { display: grid; grid-template-columns: auto 1fr; gap: 1px 8px; margin: 0; } #tip dt { color: var(--muted); } #tip dd { margin: 0; font-family: ui-monospace, monospace; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  .controls, #tip, noscript { display: none !important; }
  .timeline { border-color: #999; }
  section, .summary { break-inside: auto; }
  h2, h3 { break-after: avoid; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`;
