// The report page's one script, inlined (the page loads nothing; its Content-Security-Policy allows
// this script by its hash and nothing else). It reads the data block, draws a row of SVG per lane
// in percentages of the width (so print and resizing need no redraw), lists the events, and
// handles hover cards, zoom and pan (wheel, drag, buttons, keys) and #event-N / #finding-N links.
// Every string from the data reaches the page through textContent or setAttribute, never as markup.
// Written as plain ES2017 for any browser; it contains no backtick or dollar-brace, so it can
// live in this template string.

import { PAGE_DRAW } from './page-draw.js';

// The page's state, shared by the drawing half (page-draw.ts) and this one.
const OPENING = `(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var STATES = ['idle', 'waiting', 'holding', 'in-section', 'paused', 'crashed'];
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var tip = document.getElementById('tip');
  var views = [];
  var active = null;
  var marked = [];
`;

// Hover cards, zoom and pan, links, and the setup of each section's lanes and list.
const INTERACTION = String.raw`  function card(title, rows) {
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    tip.appendChild(html('b', null, title));
    var dl = html('dl');
    rows.forEach(function (r) {
      dl.appendChild(html('dt', null, r[0]));
      dl.appendChild(html('dd', null, r[1]));
    });
    if (rows.length > 0) tip.appendChild(dl);
    tip.hidden = false;
  }
  function showTip(target) {
    var ev = target.getAttribute('data-ev');
    var fi = target.getAttribute('data-f');
    if (ev !== null) {
      var found = findEvent(+ev);
      var sec = found.view.sec;
      card('#' + ev + '  ' + found.e[3], [['lane', sec.lanes[found.e[1]].n]].concat(found.e[4]));
    } else if (fi !== null) {
      var hit = findFinding(+fi);
      var fsec = hit.view.sec;
      card('finding ' + fi + ': ' + hit.e[2], [['window', windowText(fsec, hit.e[0], hit.e[1])], ['lanes', hit.e[4].map(function (li) { return fsec.lanes[li].n; }).join(', ')], ['what', hit.e[3]]]);
    } else card(target.getAttribute('data-tip'), []);
  }
  function placeTip(x, y) {
    tip.style.left = Math.max(4, Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8)) + 'px';
    tip.style.top = Math.max(4, Math.min(y + 16, window.innerHeight - tip.offsetHeight - 8)) + 'px';
  }
  function zoom(v, factor, at) {
    var span = v.to - v.from;
    var center = at === undefined ? v.from + span / 2 : at;
    var next = Math.min(Math.max(span * factor, v.minSpan), v.full);
    v.from = center - ((center - v.from) / span) * next;
    v.to = v.from + next;
    clamp(v);
    schedule(v);
  }
  function pan(v, fraction) {
    var span = v.to - v.from;
    v.from += span * fraction;
    v.to += span * fraction;
    clamp(v);
    schedule(v);
  }
  function act(v, what) {
    if (what === 'in') zoom(v, 0.5);
    else if (what === 'out') zoom(v, 2);
    else if (what === 'left') pan(v, -0.25);
    else if (what === 'right') pan(v, 0.25);
    else if (what === 'reset') {
      v.from = 0;
      v.to = v.full;
      schedule(v);
    }
  }
  var KEYS = { '+': 'in', '=': 'in', '-': 'out', _: 'out', ArrowLeft: 'left', ArrowRight: 'right', '0': 'reset', Home: 'reset' };
  function mark(ids) {
    marked.forEach(function (e) { e.classList.remove('hl-row'); });
    marked = [];
    ids.forEach(function (id) {
      if (id.indexOf('event-') === 0) {
        var found = findEvent(+id.slice(6));
        var details = found && found.view.root.querySelector('details.events');
        if (details) details.open = true;
        if (found) listEvents(found.view.sec, found.view.root);
      }
      var row = document.getElementById(id);
      if (!row) return;
      row.classList.add('hl-row');
      marked.push(row);
      var box = row.closest('details');
      if (box) box.open = true;
    });
  }
  function follow(scroll) {
    var m = /^#(event|finding)-(\d+)$/.exec(location.hash);
    if (!m) return;
    var id = +m[2];
    var v;
    if (m[1] === 'event') {
      var found = findEvent(id);
      if (!found) return;
      v = found.view;
      var t = found.e[0];
      if (t < v.from || t > v.to) {
        var span = v.to - v.from;
        v.from = t - span / 2;
        v.to = t + span / 2;
        clamp(v);
      }
    } else {
      var hit = findFinding(id);
      if (!hit) return;
      v = hit.view;
      var pad = Math.max((hit.e[1] - hit.e[0]) * 0.25, v.full / 50, v.minSpan);
      v.from = hit.e[0] - pad;
      v.to = hit.e[1] + pad;
      clamp(v);
    }
    views.forEach(function (other) { if (other.hl) { other.hl = null; schedule(other); } });
    v.hl = m[1] + '-' + id;
    active = v;
    render(v);
    mark([m[1] + '-' + id]);
    if (scroll) v.timeline.scrollIntoView({ block: 'center' });
  }
  // The event list is built when first opened (a long history's is closed at first: 10,000 rows).
  function listEvents(sec, root) {
    var body = root.querySelector('table.events tbody');
    if (body.childElementCount > 0) return;
    var rows = document.createDocumentFragment();
    sec.ev.forEach(function (e, i) {
      var id = sec.firstEvent + i;
      var tr = html('tr');
      tr.id = 'event-' + id;
      var link = html('a', null, String(id));
      link.href = '#event-' + id;
      tr.appendChild(html('td')).appendChild(link);
      tr.appendChild(html('td', null, timeText(sec, e[0])));
      tr.appendChild(html('td', null, sec.lanes[e[1]].n));
      tr.appendChild(html('td', 'text', e[3]));
      rows.appendChild(tr);
    });
    body.appendChild(rows);
  }
  function setup(sec, s) {
    var root = document.querySelector('[data-section="' + s + '"]');
    var full = Math.max(sec.end, 1);
    var v = { sec: sec, full: full, minSpan: Math.max(full / 100000, 0.5), from: 0, to: full, rows: [], hl: null, pending: false };
    v.root = root;
    v.timeline = root.querySelector('.timeline');
    v.zoomLabel = root.querySelector('.window');
    var axisRow = html('div', 'lane axis');
    axisRow.appendChild(html('div', 'lane-name', sec.origin === null ? 'run time' : 'server time (UTC)'));
    v.axis = svg('svg', { role: 'presentation' });
    axisRow.appendChild(v.axis);
    v.timeline.appendChild(axisRow);
    sec.lanes.forEach(function (lane) {
      var row = html('div', 'lane ' + lane.k);
      var name = html('div', 'lane-name', lane.n);
      name.title = lane.n;
      row.appendChild(name);
      var g = svg('svg', { 'aria-label': lane.n });
      row.appendChild(g);
      v.timeline.appendChild(row);
      v.rows.push({ svg: g });
    });
    var box = root.querySelector('details.events');
    if (box.open) listEvents(sec, root);
    else box.addEventListener('toggle', function () { listEvents(sec, root); });

    root.querySelectorAll('[data-act]').forEach(function (b) {
      b.addEventListener('click', function () { act(v, b.getAttribute('data-act')); });
    });
    var t = v.timeline;
    var shown = null;
    t.addEventListener('mousemove', function (e) {
      var target = e.target.closest && e.target.closest('[data-ev],[data-f],[data-tip]');
      if (!target) {
        tip.hidden = true;
        shown = null;
        return;
      }
      if (target !== shown) showTip(target);
      shown = target;
      placeTip(e.clientX, e.clientY);
    });
    t.addEventListener('mouseleave', function () { tip.hidden = true; shown = null; });
    t.addEventListener('wheel', function (e) {
      var box = v.rows.length > 0 ? v.rows[0].svg.getBoundingClientRect() : v.axis.getBoundingClientRect();
      if (box.width <= 0) return;
      e.preventDefault();
      active = v;
      var horizontal = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
      if (horizontal) pan(v, (e.deltaX || e.deltaY) / box.width);
      else zoom(v, Math.exp(e.deltaY * 0.002), v.from + ((e.clientX - box.left) / box.width) * (v.to - v.from));
    }, { passive: false });
    var drag = null;
    t.addEventListener('pointerdown', function (e) {
      if (e.button !== 0) return;
      active = v;
      drag = { x: e.clientX, from: v.from, to: v.to, width: v.axis.getBoundingClientRect().width, moved: false };
    });
    window.addEventListener('pointermove', function (e) {
      if (!drag || drag.width <= 0) return;
      var dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (!drag.moved) return;
      t.classList.add('dragging');
      var shift = (-dx / drag.width) * (drag.to - drag.from);
      v.from = drag.from + shift;
      v.to = drag.to + shift;
      clamp(v);
      schedule(v);
    });
    window.addEventListener('pointerup', function (e) {
      if (drag && !drag.moved) {
        var target = e.target.closest && e.target.closest('[data-ev],[data-f]');
        if (target) location.hash = target.hasAttribute('data-ev') ? 'event-' + target.getAttribute('data-ev') : 'finding-' + target.getAttribute('data-f');
      }
      drag = null;
      t.classList.remove('dragging');
    });
    t.addEventListener('focus', function () { active = v; });
    views.push(v);
    render(v);
  }
  data.sections.forEach(setup);
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    var what = KEYS[e.key];
    var v = active || views[0];
    if (!what || !v) return;
    e.preventDefault();
    act(v, what);
  });
  window.addEventListener('hashchange', function () { follow(true); });
  follow(true);
  document.documentElement.setAttribute('data-ready', 'true');
})();
`;

/** The whole script, one function run once at load. */
export const PAGE_SCRIPT = OPENING + PAGE_DRAW + INTERACTION;
