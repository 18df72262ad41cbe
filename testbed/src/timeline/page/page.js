// The timeline page: one or several runs, drawn from the data inlined in
// the page (`<script id="data" type="application/json">`), with no library
// and no network. `model.js` decodes the data and answers questions of it,
// `draw.js` paints; this part holds the view and what the reader does.
//
// What it draws, top to bottom for each run: a lane for the loop's
// wake-ups (one tick per turn, as tall as the share of connections that
// were ready), then one lane per connection, one bar per item. A bar is
// light for its whole life and dark while the server was applying a service
// time to one of its request lines, so the light part is time spent
// waiting on the client.
//
// The reader zooms (Ctrl+wheel, or the wheel once the figure was clicked;
// a pinch; +/-; the buttons), pans (drag, swipe, Shift+arrows), scrubs a
// time cursor (click, the slider, [ and ], or `#t=12.5ms` in the address)
// and walks from item to item with the arrow keys; Shift+drag (or `{` and
// `}`) selects a range of time and its totals (select.js). Each run's panel under
// the lanes says what every connection was doing at the cursor, how many
// items were in flight, and the throughput so far against Little's ideal.

var data = JSON.parse(document.getElementById('data').textContent);
var runs = decode(data);
// The executor's tasks, where it recorded them (tasks.js): their polls
// may outlast the last item, and the axis covers them.
runs.forEach(function (m, r) {
  var t = data.runs[r].tasks;
  m.tasks = t ? decodeTasks(t) : null;
  if (m.tasks && m.tasks.end > m.end) { m.end = m.tasks.end; }
});
var stacked = runs.length > 1;
var end = runs.reduce(function (e, m) { return Math.max(e, m.end); }, 1);
var MAX_H = 600;  // the lanes' box at most, px; more lanes scroll in it

// ---- The layout: rows of lanes, and the time axis's scale ---------------
var totalRows = runs.reduce(function (n, m) { return n + m.lanes + 1; }, 0);
var L = {
  laneH: Math.max(10, Math.min(18, Math.floor(440 / Math.max(1, totalRows)))),
  head: stacked ? 16 : 0, width: 0, plotW: 40, visH: 0, cursor: null
};
var yAt = 0;
runs.forEach(function (m) {
  m.counterTop = yAt + L.head;
  m.top = m.counterTop + 2 * COUNTER_H;
  yAt = m.top + (m.lanes + 1) * L.laneH + 6;
});
L.contentH = yAt;
L.visH = Math.min(MAX_H, L.contentH);

var view = { t0: 0, t1: end };
L.x = function (t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * L.plotW; };
function tAt(px) { return view.t0 + (px - LABEL_W) / L.plotW * (view.t1 - view.t0); }

var box = document.getElementById('lanes');
var plot = document.getElementById('plot');
var axisCanvas = document.getElementById('axis');
var figure = document.getElementById('figure');
document.getElementById('spacer').style.height = (L.contentH - L.visH) + 'px';
box.style.maxHeight = L.visH + 'px';
box.setAttribute('data-items', String(runs.reduce(function (n, m) { return n + m.n; }, 0)));
box.setAttribute('data-lanes', String(runs.reduce(function (n, m) { return n + m.lanes; }, 0)));
box.setAttribute('data-wakes', String(runs.reduce(function (n, m) { return n + (m.turns ? m.turns.woke.length : 0); }, 0)));
var taskPanel = setupTasks(runs, stacked);

// ---- State: the cursor, the item the keyboard is on, the one chosen ----
var focus = null;   // { r, i }: the keyboard's item
var chosen = null;  // { r, i }: the item whose details are open
var selection = null;  // { a, b }: a range of time, µs (select.js)
var pal = {};
var draws = [];     // ms each frame's drawing took, for the page's tests
// For the page's tests: the drawing times, the view, where on the screen
// item `id` of run `r` is drawn now (null: not in view), and where
// instant `t` is on run `r`'s counter row `row`.
window.timelinePage = { draws: draws, view: view, paint: function () { paint(); }, where: function (id, r) {
  var m = runs[r || 0], i = m.byId.get(id);
  if (i === undefined) { return null; }
  var rect = plot.getBoundingClientRect();
  var a = Math.max(LABEL_W, L.x(m.start[i])), b = Math.min(LABEL_W + L.plotW, L.x(m.stop[i]));
  var y = m.top + (m.lane[i] + 1.5) * L.laneH - box.scrollTop;
  return b < a || y < 0 || y > L.visH ? null : { x: rect.left + (a + b) / 2, y: rect.top + y };
}, counter: function (t, r, row) {
  var rect = plot.getBoundingClientRect();
  return { x: rect.left + L.x(t), y: rect.top + runs[r].counterTop + (row + 0.5) * COUNTER_H - box.scrollTop };
} };

theme(initialDark());

var scheduled = false;
function redraw() {
  if (scheduled) { return; }
  scheduled = true;
  requestAnimationFrame(function () { scheduled = false; paint(); });
}

function paint() {
  var began = performance.now();
  L.width = box.clientWidth;
  L.plotW = Math.max(40, L.width - LABEL_W - 4);
  var ctx = sizeCanvas(plot, L.width, L.visH);
  drawLanes(ctx, L, runs, view, box.scrollTop, pal, data.colours, data.light);
  drawSelection(ctx, selection, pal);
  drawMarks(ctx, L, runs, box.scrollTop, pal, [
    { at: chosen, colour: pal.fg }, { at: focus, colour: pal.cursor }]);
  drawAxis(sizeCanvas(axisCanvas, L.width, AXIS_H), L, view, pal);
  if (taskPanel) { paintTasks(taskPanel, L, view, pal, data.colours); }
  draws.push(performance.now() - began);
  if (draws.length > 1000) { draws.splice(0, 500); }
}

// ---- Each run's readout at the cursor ------------------------------------
var readouts = runs.map(function (m) {
  var div = document.createElement('div');
  div.className = 'run-readout';
  div.setAttribute('data-run', String(m.index));
  div.innerHTML = (stacked ? '<h2>' + esc(m.label) + '</h2>' : '') +
    '<div class="numbers"><span>in flight <b><output class="in-flight"></output></b></span>' +
    '<span>done <b class="done"></b></span><span>throughput so far <b class="rate"></b></span>' +
    '<span>Little\'s ideal <b>' + (m.ideal === null || m.ideal === undefined ? 'none (zero latency)'
      : m.ideal.toFixed(1) + ' items/s') + '</b></span></div>' +
    '<div class="conns" tabindex="0" role="region" aria-label="' + esc((stacked ? m.label + ': ' : '') +
      'what each connection was doing at the cursor') + '"></div>';
  document.getElementById('readouts').appendChild(div);
  var conns = div.querySelector('.conns'), rows = [];
  for (var l = 0; l < m.lanes; l++) { rows.push(conns.appendChild(document.createElement('div'))); }
  return { out: div.querySelector('.in-flight'), done: div.querySelector('.done'),
    rate: div.querySelector('.rate'), rows: rows };
});

var scrub = document.getElementById('scrub');
function setCursor(t) {
  var c = Math.max(0, Math.min(end, t));
  L.cursor = c;
  scrub.value = String(Math.round(c / end * 100));
  scrub.setAttribute('aria-valuetext', ms(c) + ' of ' + ms(end));
  var said = [];
  runs.forEach(function (m, r) {
    var n = countsAt(m, c), ro = readouts[r];
    ro.out.textContent = String(n.inFlight);
    ro.out.setAttribute('data-in-flight', String(n.inFlight));
    ro.out.setAttribute('data-t-us', String(Math.round(c)));
    ro.done.textContent = String(n.done);
    ro.rate.textContent = (c > 0 ? n.done / (c / 1e6) : 0).toFixed(1) + ' items/s';
    for (var l = 0; l < m.lanes; l++) {
      var i = barAt(m, l, c), srv = i < 0 ? null : serving(m, i, c);
      var line = '#' + l + ': ' + (i < 0 ? 'idle' : 'item ' + m.id[i] +
        (srv === null ? '' : srv ? ' at the server' : ' waiting on the client'));
      // Only the lines that changed: each change costs the browser a layout.
      if (ro.rows[l].textContent !== line) { ro.rows[l].textContent = line; }
    }
    said.push((stacked ? m.label + ': ' : '') + n.inFlight + ' in flight, ' + n.done + ' done');
  });
  document.getElementById('live').textContent = 'At ' + ms(c) + ': ' + said.join('; ') + '.';
  redraw();
}

// ---- Details: a tooltip on hover, a panel that stays on click or tap ----
var tip = document.getElementById('tip');
var details = document.getElementById('details');
function showTip(lines, cx, cy) {
  tip.innerHTML = lines.join('<br>');
  tip.style.display = 'block';
  var w = tip.offsetWidth, h = tip.offsetHeight;
  tip.style.left = Math.max(4, Math.min(window.innerWidth - w - 4, cx + 12)) + 'px';
  tip.style.top = Math.max(4, Math.min(window.innerHeight - h - 4, cy + 12)) + 'px';
}
function hideTip() { tip.style.display = 'none'; }
function openDetails(lines, at) {
  document.getElementById('details-text').innerHTML = lines.join('<br>');
  details.hidden = false;
  chosen = at;
  redraw();
}
function closeDetails() { details.hidden = true; chosen = null; redraw(); }
document.getElementById('details-close').addEventListener('click', function () { closeDetails(); box.focus(); });
document.getElementById('selection-close').addEventListener('click', function () { showSelection(null); box.focus(); });

// What is under the pointer at client (cx, cy): a bar, a wake-up, or null.
function hit(cx, cy) {
  var rect = plot.getBoundingClientRect();
  var px = cx - rect.left, y = cy - rect.top + box.scrollTop;
  if (px < LABEL_W) { return null; }
  var t = tAt(px), tol = 4 / L.plotW * (view.t1 - view.t0);
  for (var r = 0; r < runs.length; r++) {
    var m = runs[r], row = Math.floor((y - m.top) / L.laneH) - 1;
    if (y >= m.counterTop && y < m.top) {
      return { lines: describeCounter(m, Math.floor((y - m.counterTop) / COUNTER_H), t, view) };
    }
    if (y < m.top || row >= m.lanes) { continue; }
    if (row < 0) {
      var k = wakeNear(m, t, 1.5 * tol);
      return k < 0 ? null : { lines: describeWake(m, k, stacked) };
    }
    var i = barNear(m, row, t, tol);
    return i < 0 ? null : { at: { r: r, i: i }, lines: describeBar(m, i, stacked) };
  }
  return null;
}

// ---- Keyboard: from item to item, the focused one named for assistive
// technology through `aria-activedescendant` (the bars are pixels) -------
var option = document.getElementById('focus-item');
function focusItem(at, show) {
  focus = at;
  var m = runs[at.r], i = at.i;
  option.textContent = 'item ' + m.id[i] + ', connection #' + m.lane[i] + (stacked ? ' of ' + m.label : '') +
    ', ' + ms(m.start[i]) + ' to ' + ms(m.stop[i]) + ', ' + m.outcomes[m.outcome[i]][2];
  box.setAttribute('aria-activedescendant', 'focus-item');
  if (show !== false) { bringIntoView(m, i); }
  redraw();
}
function bringIntoView(m, i) {
  var span = view.t1 - view.t0;
  if (m.stop[i] < view.t0 || m.start[i] > view.t1) {
    view.t0 = (m.start[i] + m.stop[i]) / 2 - span / 2;
    view.t1 = view.t0 + span;
    clamp();
  }
  var y = m.top + (m.lane[i] + 1) * L.laneH;
  if (y < box.scrollTop || y + L.laneH > box.scrollTop + L.visH) { box.scrollTop = y - L.visH / 2; }
}
// The bar on lane `l` of run `m` nearest in time to `t` (-1: the lane is empty).
function nearestOnLane(m, l, t) {
  var lo = m.laneFirst[l], hi = m.laneFirst[l + 1];
  if (lo === hi) { return -1; }
  var k = Math.min(hi - 1, Math.max(lo, upperBound(m.start, t, lo, hi) - 1));
  if (k + 1 < hi && Math.abs(m.start[k + 1] - t) < Math.abs(m.start[k] - t)) { k++; }
  return k;
}
function step(dLane, dItem) {
  if (!focus) {
    var first = runs.findIndex(function (m) { return m.n > 0; });
    if (first < 0) { return; }
    var m0 = runs[first], l0 = m0.lane[0];
    var k0 = Math.max(lowerBound(m0.start, view.t0, m0.laneFirst[l0], m0.laneFirst[l0 + 1]), m0.laneFirst[l0]);
    focusItem({ r: first, i: Math.min(k0, m0.laneFirst[l0 + 1] - 1) });
    return;
  }
  var m = runs[focus.r], i = focus.i, l = m.lane[i];
  if (dItem) {
    var j = i + dItem;
    if (j >= m.laneFirst[l] && j < m.laneFirst[l + 1]) { focusItem({ r: focus.r, i: j }); }
    return;
  }
  // Up and down: the next lane with a bar, across runs, nearest in time.
  var t = (m.start[i] + m.stop[i]) / 2, r = focus.r;
  for (;;) {
    l += dLane;
    if (l < 0) { if (--r < 0) { return; } l = runs[r].lanes - 1; }
    if (l >= runs[r].lanes) { if (++r >= runs.length) { return; } l = 0; }
    var k = nearestOnLane(runs[r], l, t);
    if (k >= 0) { focusItem({ r: r, i: k }); return; }
  }
}
function chooseFocused() {
  if (focus) { openDetails(describeBar(runs[focus.r], focus.i, stacked), focus); }
}

// Item `id` (the first run that has it), or the next failure after the
// focused item (or the cursor), in time across the runs.
function findItem(id) {
  for (var r = 0; r < runs.length; r++) {
    var i = runs[r].byId.get(id);
    if (i !== undefined) { focusItem({ r: r, i: i }); chooseFocused(); return true; }
  }
  return false;
}
function nextFailure() {
  var after = focus ? runs[focus.r].start[focus.i] : (L.cursor || 0), best = null;
  runs.forEach(function (m, r) {
    for (var k = upperBound(m.starts, after, 0, m.n); k < m.n; k++) {
      var i = m.byStart[k];
      if (m.failed[i]) {
        if (!best || m.start[i] < runs[best.r].start[best.i]) { best = { r: r, i: i }; }
        return;
      }
    }
  });
  if (best) { focusItem(best); chooseFocused(); return; }
  document.getElementById('live').textContent = 'No failure after ' + ms(after) + '.';
}
document.getElementById('find').addEventListener('submit', function (e) {
  e.preventDefault();
  var words = document.getElementById('find-item').value.trim();
  if (!/^[0-9]+$/.test(words) || !findItem(Number(words))) {
    document.getElementById('live').textContent = 'No item "' + words + '" here: type an item number from the run.';
  }
});
document.getElementById('next-failure').addEventListener('click', nextFailure);

// ---- Zoom, pan and scrub ------------------------------------------------
function zoom(factor, at) {
  var span = Math.max(50, Math.min(end * 1.05, (view.t1 - view.t0) * factor));
  var share = (at - view.t0) / (view.t1 - view.t0);
  view.t0 = at - share * span;
  view.t1 = view.t0 + span;
  clamp();
  redraw();
}
function pan(dt) { view.t0 += dt; view.t1 += dt; clamp(); redraw(); }
function clamp() {
  var span = view.t1 - view.t0;
  if (view.t0 < 0) { view.t0 = 0; view.t1 = span; }
  if (view.t1 > end * 1.05) { view.t1 = end * 1.05; view.t0 = Math.max(0, view.t1 - span); }
}
function reset() { view.t0 = 0; view.t1 = end; redraw(); }

// The wheel belongs to the page around the figure (a chapter scrolls over
// it) unless Ctrl is held or the reader clicked into the figure first.
var armed = false;
function arm(on) { armed = on; figure.classList.toggle('armed', on); }
figure.addEventListener('pointerleave', function () { arm(false); });
figure.addEventListener('wheel', function (e) {
  if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
    e.preventDefault();
    pan(e.deltaX / L.plotW * (view.t1 - view.t0));
  } else if (e.ctrlKey || e.metaKey || armed) {
    e.preventDefault();
    if (e.shiftKey) { pan(e.deltaY / L.plotW * (view.t1 - view.t0)); return; }
    zoom(Math.exp(e.deltaY * 0.002), tAt(e.clientX - plot.getBoundingClientRect().left));
  }
}, { passive: false });
box.addEventListener('scroll', redraw);

// Pointers: one drags (pans) or clicks; two pinch (zoom about their middle).
var pointers = new Map(), drag = null, pinch = null;
function midT() {
  var xs = Array.from(pointers.values()), left = plot.getBoundingClientRect().left;
  return { dist: Math.max(10, Math.abs(xs[0].x - xs[1].x)), px: (xs[0].x + xs[1].x) / 2 - left };
}
box.addEventListener('pointerdown', function (e) {
  arm(true);
  pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
  if (pointers.size === 2) {
    var mt = midT();
    pinch = { dist: mt.dist, span: view.t1 - view.t0, t: tAt(mt.px) };
    drag = null;
    hideTip();
    return;
  }
  if (pointers.size === 1) {
    drag = { x: e.clientX, t0: view.t0, t1: view.t1, moved: false, id: e.pointerId, select: e.shiftKey };
  }
});
window.addEventListener('pointermove', function (e) {
  if (pointers.has(e.pointerId)) { pointers.set(e.pointerId, { x: e.clientX, y: e.clientY }); }
  if (pinch && pointers.size === 2) {
    var mt = midT(), span = Math.max(50, Math.min(end * 1.05, pinch.span * pinch.dist / mt.dist));
    view.t0 = pinch.t - (mt.px - LABEL_W) / L.plotW * span;
    view.t1 = view.t0 + span;
    clamp();
    redraw();
    return;
  }
  if (drag && e.pointerId === drag.id) {
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) { drag.moved = true; box.classList.add('dragging'); hideTip(); }
    if (drag.moved && drag.select) {
      var left = plot.getBoundingClientRect().left;
      showSelection({ a: tAt(drag.x - left), b: tAt(e.clientX - left) });
    } else if (drag.moved) {
      var dt = -dx / L.plotW * (drag.t1 - drag.t0);
      view.t0 = drag.t0 + dt;
      view.t1 = drag.t1 + dt;
      clamp();
      redraw();
    }
    return;
  }
  if (e.pointerType === 'mouse' && !e.buttons && e.target === plot) {
    var h = hit(e.clientX, e.clientY);
    if (h) { showTip(h.lines, e.clientX, e.clientY); } else { hideTip(); }
  }
});
function pointerEnd(e) {
  if (!pointers.delete(e.pointerId)) { return; }
  if (pinch) { if (pointers.size === 0) { pinch = null; } return; }
  if (!drag || e.pointerId !== drag.id) { return; }
  var moved = drag.moved;
  drag = null;
  box.classList.remove('dragging');
  if (moved || e.type === 'pointercancel') { return; }
  // A click or a tap: the cursor goes there, and a bar's details open and stay.
  var px = e.clientX - plot.getBoundingClientRect().left;
  if (px >= LABEL_W) { setCursor(tAt(px)); }
  var h = hit(e.clientX, e.clientY);
  if (h) {
    hideTip();
    if (h.at) { focusItem(h.at, false); }
    openDetails(h.lines, h.at || null);
  }
}
window.addEventListener('pointerup', pointerEnd);
window.addEventListener('pointercancel', pointerEnd);
plot.addEventListener('pointerleave', hideTip);

// The tasks' rows share the view: hover for a poll, click for the cursor
// and details that stay, Ctrl+wheel to zoom, as over the lanes.
if (taskPanel) {
  var taskCanvas = taskPanel.canvas;
  taskCanvas.addEventListener('pointermove', function (e) {
    var lines = taskHit(taskPanel, L, view, e.clientX, e.clientY);
    if (lines) { showTip(lines, e.clientX, e.clientY); } else { hideTip(); }
  });
  taskCanvas.addEventListener('pointerleave', hideTip);
  taskCanvas.addEventListener('click', function (e) {
    var px = e.clientX - taskCanvas.getBoundingClientRect().left;
    if (px >= LABEL_W) { setCursor(tAt(px)); }
    var lines = taskHit(taskPanel, L, view, e.clientX, e.clientY);
    if (lines) { hideTip(); openDetails(lines, null); }
  });
  taskCanvas.addEventListener('wheel', function (e) {
    if (!(e.ctrlKey || e.metaKey)) { return; }
    e.preventDefault();
    zoom(Math.exp(e.deltaY * 0.002), tAt(e.clientX - taskCanvas.getBoundingClientRect().left));
  }, { passive: false });
}

box.addEventListener('keydown', function (e) {
  var span = view.t1 - view.t0, mid = (view.t0 + view.t1) / 2;
  var keys = {
    '+': function () { zoom(0.5, L.cursor === null ? mid : L.cursor); },
    '=': function () { zoom(0.5, L.cursor === null ? mid : L.cursor); },
    '-': function () { zoom(2, mid); },
    'ArrowLeft': function () { if (e.shiftKey) { pan(-span / 10); } else { step(0, -1); } },
    'ArrowRight': function () { if (e.shiftKey) { pan(span / 10); } else { step(0, 1); } },
    'ArrowUp': function () { step(-1, 0); },
    'ArrowDown': function () { step(1, 0); },
    'Enter': chooseFocused,
    ' ': chooseFocused,
    'Escape': function () { closeDetails(); showSelection(null); arm(false); },
    '{': function () { showSelection({ a: L.cursor || 0, b: selection ? selection.b : end }); },
    '}': function () { showSelection({ a: selection ? selection.a : 0, b: L.cursor || 0 }); },
    'n': nextFailure,
    '[': function () { setCursor((L.cursor || 0) - span / 100); },
    ']': function () { setCursor((L.cursor || 0) + span / 100); },
    '0': reset,
    'Home': function () { setCursor(0); },
    'End': function () { setCursor(end); }
  };
  if (keys[e.key] && !e.ctrlKey && !e.altKey && !e.metaKey) { e.preventDefault(); keys[e.key](); }
});

document.getElementById('zoom-in').addEventListener('click', function () { zoom(0.5, (view.t0 + view.t1) / 2); });
document.getElementById('zoom-out').addEventListener('click', function () { zoom(2, (view.t0 + view.t1) / 2); });
document.getElementById('zoom-reset').addEventListener('click', reset);
scrub.addEventListener('input', function () { setCursor(Number(scrub.value) / 100 * end); });
window.addEventListener('resize', redraw);
window.addEventListener('hashchange', fromHash);

// `#t=12.5ms` (or `us`, `s`) puts the cursor there: a link to an instant.
// `&item=42` opens item 42's details: a link to an item.
function fromHash() {
  var item = /(?:^#|&)item=([0-9]+)/.exec(location.hash);
  if (item) { findItem(Number(item[1])); }
  var m = /(?:^#|&)t=([0-9.]+)(us|µs|ms|s)?/.exec(location.hash);
  if (!m) { return false; }
  setCursor(Number(m[1]) * { us: 1, 'µs': 1, ms: 1e3, s: 1e6 }[m[2] || 'ms']);
  return true;
}

// ---- Theme, and the book around an embedded page -------------------------
// Dark when the reader's system is, when `#theme=dark` says so, or when
// the book that embeds the page says its theme is dark (`postMessage`: a
// book opened from a file is another origin, whose document a frame
// cannot read).
function initialDark() {
  var dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  if (/theme=dark/.test(location.hash)) { dark = true; }
  if (/theme=light/.test(location.hash)) { dark = false; }
  return dark;
}
function theme(dark) {
  document.documentElement.classList.toggle('dark', dark);
  document.documentElement.style.setProperty('--light', String(data.light));
  var css = getComputedStyle(document.documentElement);
  ['bg', 'fg', 'muted', 'grid', 'lane', 'cursor', 'wake', 'wrong'].forEach(function (k) {
    pal[k] = css.getPropertyValue('--' + k).trim();
  });
  data.colours.wrong = pal.wrong;
  redraw();
}
var embedded = window.parent !== window;
// The frame takes the page's height, so nothing in it scrolls out of
// sight behind the book's text. The book may not have listened yet when
// the page first says it: its theme message is answered with the height.
var main = document.querySelector('main'), told = 0;
function tell() {
  var h = Math.ceil(main.getBoundingClientRect().height);
  if (h !== told) { told = h; window.parent.postMessage({ timelinePage: 'height', height: h }, '*'); }
}
window.addEventListener('message', function (e) {
  if (e.source !== window.parent || !e.data || e.data.timelinePage !== 'theme') { return; }
  theme(Boolean(e.data.dark));
  told = 0;
  tell();
});
if (embedded) {
  new ResizeObserver(tell).observe(main);
  window.parent.postMessage({ timelinePage: 'ready' }, '*');
  tell();
}

paint();
if (!fromHash()) { setCursor(end / 2); }
// The first full frame: the tests read how long it took from navigation.
requestAnimationFrame(function () {
  document.body.setAttribute('data-drawn', String(Math.round(performance.now())));
});
