// The drawing half of the report page's script (page-script.ts joins both into one function, so
// they share its variables): SVG helpers, time labels, the bands, ticks and axis of a view, and
// the lookup of a numbered event or finding. Same rules: plain ES2017, no backtick or dollar-brace.

export const PAGE_DRAW = String.raw`  function svg(name, attrs) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function html(name, cls, text) {
    var e = document.createElement(name);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function timeText(sec, t) {
    if (sec.origin === null) return (t / 1000).toFixed(3) + ' s';
    return new Date(sec.origin + t).toISOString().slice(11, 23);
  }
  function windowText(sec, a, b) {
    return b > a ? timeText(sec, a) + ' \u2013 ' + timeText(sec, b) : timeText(sec, a);
  }
  function pct(v, t) {
    return (((t - v.from) / (v.to - v.from)) * 100).toFixed(4) + '%';
  }
  function clamp(v) {
    var span = Math.min(Math.max(v.to - v.from, v.minSpan), v.full);
    v.from = Math.max(0, Math.min(v.from, v.full - span));
    v.to = v.from + span;
  }
  function schedule(v) {
    if (v.pending) return;
    v.pending = true;
    requestAnimationFrame(function () {
      v.pending = false;
      render(v);
    });
  }
  function band(v, g, a, b, cls, extra, always) {
    if (b < v.from || a > v.to) return null;
    var x = Math.max(a, v.from);
    var x2 = Math.min(Math.max(b, a), v.to);
    // Under a quarter of a pixel shows nothing and costs an element: a long history has thousands.
    if (!always && ((x2 - x) / (v.to - v.from)) * v.px < 0.25) return null;
    var r = svg('rect', { x: pct(v, x), width: (((x2 - x) / (v.to - v.from)) * 100).toFixed(4) + '%', y: 2, height: 18, class: cls });
    for (var k in extra) r.setAttribute(k, extra[k]);
    g.appendChild(r);
    return r;
  }
  function niceStep(span) {
    var raw = span / 8;
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function drawAxis(v) {
    var s = v.axis;
    while (s.firstChild) s.removeChild(s.firstChild);
    var step = niceStep(v.to - v.from);
    for (var t = Math.ceil(v.from / step) * step; t <= v.to; t += step) {
      s.appendChild(svg('line', { x1: pct(v, t), x2: pct(v, t), y1: 14, y2: 20 }));
      var at = (t - v.from) / (v.to - v.from);
      var label = svg('text', { x: pct(v, t), y: 11, 'text-anchor': at < 0.04 ? 'start' : at > 0.96 ? 'end' : 'middle' });
      label.textContent = timeText(v.sec, t);
      s.appendChild(label);
    }
  }
  function render(v) {
    var sec = v.sec;
    v.px = v.axis.getBoundingClientRect().width || 1000;
    drawAxis(v);
    v.rows.forEach(function (row) {
      while (row.svg.firstChild) row.svg.removeChild(row.svg.firstChild);
    });
    sec.lanes.forEach(function (lane, li) {
      var g = v.rows[li].svg;
      lane.s.forEach(function (s) {
        var state = STATES[s[2]];
        band(v, g, s[0], s[1], 'st-' + state, { 'data-tip': state + (s[3] ? ' (believes it holds)' : '') + ': ' + windowText(sec, s[0], s[1]) });
      });
      lane.h.forEach(function (h) {
        band(v, g, h[0], h[1], 'held', { 'data-tip': 'server: held by ' + h[2] + ': ' + windowText(sec, h[0], h[1]) });
      });
      lane.f.forEach(function (f) {
        band(v, g, f[0], f[1], 'fault-' + f[2], { 'data-tip': f[2] + (f[3] ? ' (still at the end)' : '') + ': ' + windowText(sec, f[0], f[1]) });
      });
    });
    sec.fi.forEach(function (f, i) {
      var id = sec.firstFinding + i;
      var lanes = f[4].length > 0 ? f[4] : sec.lanes.map(function (_l, li) { return li; });
      lanes.forEach(function (li) {
        var r = band(v, v.rows[li].svg, f[0], f[1], 'finding' + (v.hl === 'finding-' + id ? ' hl' : ''), { 'data-f': id }, true);
        if (r && f[1] <= f[0]) r.setAttribute('width', 3);
      });
    });
    // One glyph per pixel column and lane: a later event in the same column takes the glyph over
    // (it would be drawn on top anyway), unless the glyph is the highlighted one. Zoom in to part them.
    var last = sec.lanes.map(function () { return { col: -1, el: null }; });
    sec.ev.forEach(function (e, i) {
      if (e[0] < v.from || e[0] > v.to) return;
      var id = sec.firstEvent + i;
      var hl = v.hl === 'event-' + id;
      var cls = 'ev tone-' + e[2] + (hl ? ' hl' : '');
      var col = Math.round(((e[0] - v.from) / (v.to - v.from)) * v.px);
      var slot = last[e[1]];
      if (slot.col === col && slot.el.getAttribute('class').indexOf(' hl') < 0) {
        slot.el.setAttribute('class', cls);
        slot.el.setAttribute('data-ev', id);
        return;
      }
      if (slot.col === col && !hl) return;
      slot.col = col;
      slot.el = svg('rect', { x: pct(v, e[0]), y: 5, width: 5, height: 12, transform: 'translate(-2.5 0)', class: cls, 'data-ev': id });
      v.rows[e[1]].svg.appendChild(slot.el);
    });
    v.zoomLabel.textContent = windowText(sec, v.from, v.to);
  }
  // The view and entry of a numbered event or finding: numbers run on across sections.
  function lookup(list, first, id) {
    for (var s = 0; s < data.sections.length; s++) {
      var at = id - data.sections[s][first];
      if (at >= 0 && at < data.sections[s][list].length) return { view: views[s], e: data.sections[s][list][at] };
    }
    return null;
  }
  function findEvent(id) { return lookup('ev', 'firstEvent', id); }
  function findFinding(id) { return lookup('fi', 'firstFinding', id); }
`;
