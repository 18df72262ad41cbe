// The timeline page: one or several runs, drawn from the data inlined in
// the page (`<script id="data" type="application/json">`), with no library
// and no network. Times in the data are µs since each run's start.
//
// What it draws, top to bottom for each run: a lane for the loop's
// wake-ups (one tick per turn, as tall as the share of connections that
// were ready), then one lane per connection, one bar per item. A bar is
// light for its whole life and dark while the server was applying a service
// time to one of its request lines, so the light part is time spent
// waiting on the client.
//
// The reader zooms (wheel, +/-, the buttons), pans (drag, arrow keys) and
// scrubs a time cursor (click, the slider, [ and ], or `#t=12.5ms` in the
// address): the panel under the lanes then says what every connection was
// doing at that instant, how many items were in flight, and the throughput
// so far against Little's ideal.
'use strict';

// Errors go into the page, where a reader (and a headless browser's test)
// can see them.
window.addEventListener('error', function (e) {
  var out = document.getElementById('errors');
  if (out) { out.textContent += 'error: ' + e.message + '\n'; }
  document.body.setAttribute('data-errors', 'yes');
});

(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var LABEL_W = 46;   // the lane labels' column, px
  var AXIS_H = 18;    // the time axis, px
  var GAP = 8;        // between two runs, px

  theme();

  // ---- The model: each run's bars, service intervals and lanes ----------
  var runs = data.runs.map(function (run, r) {
    var service = {};
    run.service.forEach(function (s) {
      (service[s.id] = service[s.id] || []).push([s.start_us, s.end_us]);
    });
    var lanes = 0;
    run.bars.forEach(function (b) { lanes = Math.max(lanes, b.lane + 1); });
    return { index: r, run: run, service: service, lanes: lanes, top: 0 };
  });
  var end = 1;
  runs.forEach(function (m) {
    m.run.bars.forEach(function (b) { end = Math.max(end, b.end_us); });
    (m.run.turns ? m.run.turns.turns : []).forEach(function (t) { end = Math.max(end, t.woke_us); });
  });
  var totalLanes = runs.reduce(function (n, m) { return n + m.lanes + 1; }, 0);
  var laneH = Math.max(6, Math.min(18, Math.floor(560 / Math.max(1, totalLanes))));
  // In a stack each run gets a line above its lanes for its name.
  var HEAD = runs.length > 1 ? 14 : 0;
  var y = AXIS_H;
  runs.forEach(function (m) { m.top = y + HEAD; y = m.top + (m.lanes + 1) * laneH + GAP; });
  var height = y;

  // ---- The view: the time window shown, and the cursor -------------------
  var view = { t0: 0, t1: end };
  var cursor = null;
  var box = document.getElementById('lanes');
  var svg = el('svg', { height: height, role: 'img' });
  box.appendChild(svg);
  var width = 0;

  function plotW() { return Math.max(40, width - LABEL_W - 4); }
  function x(t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * plotW(); }
  function tAt(px) { return view.t0 + (px - LABEL_W) / plotW() * (view.t1 - view.t0); }

  // ---- Drawing: made once; zooming moves the elements ---------------------
  var axis = el('g', { 'class': 'axis' });
  var moving = [];  // [element, start_us, end_us] to place on every redraw
  var ticks = [];   // [element, time_us]
  runs.forEach(function (m) { drawRun(m); });
  svg.appendChild(axis);
  var cursorLine = el('line', { id: 'cursor', y1: AXIS_H, y2: height, visibility: 'hidden' });
  svg.appendChild(cursorLine);

  function drawRun(m) {
    var run = m.run;
    var g = el('g', { 'data-run': m.index });
    svg.appendChild(g);
    for (var lane = -1; lane < m.lanes; lane++) {
      var top = m.top + (lane + 1) * laneH;
      g.appendChild(el('rect', { 'class': 'lane-bg', x: LABEL_W, y: top + 1, width: 0, height: laneH - 2,
        'data-lane': lane < 0 ? null : lane }));
      if (lane >= 0 && (laneH >= 10 || lane % Math.ceil(10 / laneH) === 0)) {
        g.appendChild(text('lane-label', 2, top + laneH - 3, '#' + lane));
      }
    }
    // lane-bg rects span the plot: placed with the axis
    Array.prototype.forEach.call(g.querySelectorAll('.lane-bg'), function (r) { moving.push([r, null, null]); });
    g.appendChild(text('lane-label', 2, m.top + laneH - 3, 'loop'));
    if (HEAD) { g.appendChild(text('run-label', 2, m.top - 3, run.label)); }
    if (run.report.outage_ms) {
      var o = run.report.outage_ms;
      var shade = el('rect', { 'class': 'outage', y: m.top, height: (m.lanes + 1) * laneH });
      g.appendChild(shade);
      moving.push([shade, o[0] * 1000, o[1] * 1000]);
    }
    if (run.turns) {
      run.turns.turns.forEach(function (t, i) {
        var h = Math.max(2, (laneH - 2) * Math.min(1, t.ready / Math.max(1, m.lanes)));
        var line = el('line', { 'class': 'wake', y1: m.top + laneH - 1, y2: m.top + laneH - 1 - h, 'data-wake': i });
        g.appendChild(line);
        ticks.push([line, t.woke_us]);
      });
    } else {
      g.appendChild(text('no-loop', LABEL_W + 4, m.top + laneH - 4,
        'this stage has no event loop: no wake-ups to record'));
    }
    run.bars.forEach(function (b, i) {
      var top = m.top + (b.lane + 1) * laneH + 1;
      var cls = b.wrong ? 'wrong' : (b.kind || 'ok');
      var bar = el('g', { 'class': 'bar', 'data-item': b.id, 'data-conn': b.lane, 'data-i': i });
      var whole = el('rect', { y: top, height: laneH - 2, fill: colour(cls),
        'class': (m.service[b.id] ? 'l' : '') });
      bar.appendChild(whole);
      moving.push([whole, b.start_us, b.end_us]);
      (m.service[b.id] || []).forEach(function (s) {
        var dark = el('rect', { y: top, height: laneH - 2, fill: colour(cls) });
        bar.appendChild(dark);
        moving.push([dark, s[0], s[1]]);
      });
      g.appendChild(bar);
    });
  }

  function place() {
    width = box.clientWidth;
    svg.setAttribute('width', width);
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    var left = LABEL_W, right = LABEL_W + plotW();
    moving.forEach(function (item) {
      var node = item[0];
      if (item[1] === null) { node.setAttribute('x', left); node.setAttribute('width', plotW()); return; }
      var a = Math.max(left, x(item[1])), b = Math.min(right, x(item[2]));
      if (b <= a) { node.setAttribute('width', 0); node.setAttribute('x', left); return; }
      // A hairline between back-to-back bars keeps forty bars forty.
      node.setAttribute('x', a);
      node.setAttribute('width', Math.max(0.5, b - a - (b - a > 2 ? 0.5 : 0)));
    });
    ticks.forEach(function (item) {
      var px = x(item[1]);
      var shown = px >= left && px <= right;
      item[0].setAttribute('x1', px);
      item[0].setAttribute('x2', px);
      item[0].setAttribute('visibility', shown ? 'visible' : 'hidden');
    });
    drawAxis();
    placeCursor();
  }

  function drawAxis() {
    while (axis.firstChild) { axis.removeChild(axis.firstChild); }
    var span = view.t1 - view.t0;
    var step = niceStep(span / Math.max(2, Math.floor(plotW() / 70)));
    for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      var px = x(t);
      axis.appendChild(el('line', { x1: px, x2: px, y1: AXIS_H - 4, y2: height }));
      axis.appendChild(text('', px + 2, AXIS_H - 6, ms(t)));
    }
  }

  // ---- The cursor and what it reads --------------------------------------
  function setCursor(t) {
    cursor = Math.max(0, Math.min(end, t));
    document.getElementById('scrub').value = String(Math.round(cursor));
    placeCursor();
    readout();
  }

  function placeCursor() {
    if (cursor === null) { return; }
    var px = x(cursor);
    var shown = px >= LABEL_W && px <= LABEL_W + plotW();
    cursorLine.setAttribute('x1', px);
    cursorLine.setAttribute('x2', px);
    cursorLine.setAttribute('visibility', shown ? 'visible' : 'hidden');
  }

  function readout() {
    var t = cursor;
    var inFlight = 0, done = 0, lines = [];
    Array.prototype.forEach.call(svg.querySelectorAll('.bar.at'), function (n) { n.classList.remove('at'); });
    runs.forEach(function (m) {
      var doing = [];
      m.run.bars.forEach(function (b, i) {
        if (b.end_us <= t) { done++; }
        if (b.start_us <= t && t < b.end_us) {
          inFlight++;
          var serving = (m.service[b.id] || []).some(function (s) { return s[0] <= t && t < s[1]; });
          doing[b.lane] = 'item ' + b.id + (m.service[b.id] ? (serving ? ' at the server' : ' waiting on the client') : '');
          var node = svg.querySelector('[data-run="' + m.index + '"] [data-i="' + i + '"]');
          if (node) { node.classList.add('at'); }
        }
      });
      for (var lane = 0; lane < m.lanes; lane++) {
        lines.push((runs.length > 1 ? m.run.label + ' ' : '') + '#' + lane + ': ' + (doing[lane] || 'idle'));
      }
    });
    var secs = t / 1e6;
    var rate = secs > 0 ? done / secs : 0;
    var ideal = runs.map(function (m) { return m.run.report.ideal_throughput; })
      .filter(function (v) { return v !== null && v !== undefined; });
    var out = document.getElementById('in-flight');
    out.textContent = String(inFlight);
    out.setAttribute('data-in-flight', String(inFlight));
    out.setAttribute('data-t-us', String(Math.round(t)));
    document.getElementById('at').textContent = ms(t);
    document.getElementById('done').textContent = String(done);
    document.getElementById('rate').textContent = rate.toFixed(1) + ' items/s';
    document.getElementById('ideal').textContent = ideal.length
      ? ideal.map(function (v) { return v.toFixed(1); }).join(', ') + ' items/s' : 'none (zero latency)';
    var conns = document.getElementById('conns');
    conns.textContent = '';
    lines.forEach(function (l) { var d = document.createElement('div'); d.textContent = l; conns.appendChild(d); });
  }

  // ---- Hover and tap: what a bar is ---------------------------------------
  var tip = document.getElementById('tip');
  function barOf(target) {
    var g = target && target.closest ? target.closest('.bar') : null;
    if (!g) { return null; }
    var m = runs[Number(g.parentNode.getAttribute('data-run'))];
    return { m: m, b: m.run.bars[Number(g.getAttribute('data-i'))] };
  }
  function showTip(hit, cx, cy) {
    var b = hit.b, svc = hit.m.service[b.id] || [];
    var life = b.end_us - b.start_us;
    var served = svc.reduce(function (n, s) { return n + (s[1] - s[0]); }, 0);
    var rows = [
      '<b>item ' + b.id + '</b> on connection #' + b.lane + (runs.length > 1 ? ' (' + esc(hit.m.run.label) + ')' : ''),
      ms(b.start_us) + ' → ' + ms(b.end_us) + ' (' + ms(life) + ')',
      svc.length ? 'phases: ' + svc.map(function (s) { return ms(s[1] - s[0]); }).join(' + ') : 'phases: not logged by the server',
      svc.length ? 'service ' + ms(served) + ', waiting ' + ms(Math.max(0, life - served)) : '',
      'outcome: ' + esc(b.what),
      'fault injected: ' + (b.kind ? esc(b.kind) : 'none')
    ];
    showText(rows, cx, cy);
  }
  function showText(rows, cx, cy) {
    tip.innerHTML = rows.filter(Boolean).join('<br>');
    tip.style.display = 'block';
    var w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = Math.max(4, Math.min(window.innerWidth - w - 4, cx + 12)) + 'px';
    tip.style.top = Math.max(4, Math.min(window.innerHeight - h - 4, cy + 12)) + 'px';
  }
  // A wake-up is a 1-pixel tick: the pointer needs only to be near it.
  function wakeAt(cx, cy) {
    var rect = svg.getBoundingClientRect();
    var px = cx - rect.left, py = cy - rect.top;
    for (var r = 0; r < runs.length; r++) {
      var m = runs[r], turns = m.run.turns ? m.run.turns.turns : [];
      if (py < m.top || py > m.top + laneH || !turns.length) { continue; }
      var t = tAt(px), lo = 0, hi = turns.length - 1;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (turns[mid].woke_us < t) { lo = mid + 1; } else { hi = mid; }
      }
      var best = lo > 0 && Math.abs(turns[lo - 1].woke_us - t) < Math.abs(turns[lo].woke_us - t) ? lo - 1 : lo;
      if (Math.abs(x(turns[best].woke_us) - px) <= 6) { return { m: m, i: best, turn: turns[best] }; }
    }
    return null;
  }
  function showWakeTip(w, cx, cy) {
    var t = w.turn;
    showText([
      '<b>wake-up ' + (w.i + 1) + '</b> of the loop' + (runs.length > 1 ? ' (' + esc(w.m.run.label) + ')' : ''),
      'at ' + ms(t.woke_us) + ', after sleeping ' + ms(t.slept_us),
      t.ready + ' connection' + (t.ready === 1 ? '' : 's') + ' ready, ' + t.timers + ' timer' + (t.timers === 1 ? '' : 's') + ' fired',
      (t.ran ? t.ran + ' fibers or tasks ran, ' : '') + t.done + ' item' + (t.done === 1 ? '' : 's') + ' finished',
      'then worked ' + ms(t.busy_us) + ' before waiting again'
    ], cx, cy);
  }
  svg.addEventListener('pointermove', function (e) {
    if (drag) { return; }
    var hit = barOf(e.target);
    var wake = hit ? null : wakeAt(e.clientX, e.clientY);
    if (hit) { showTip(hit, e.clientX, e.clientY); }
    else if (wake) { showWakeTip(wake, e.clientX, e.clientY); }
    else { tip.style.display = 'none'; }
  });
  svg.addEventListener('pointerleave', function () { tip.style.display = 'none'; });

  // ---- Zoom, pan and scrub ------------------------------------------------
  var scheduled = false;
  function redraw() {
    if (scheduled) { return; }
    scheduled = true;
    requestAnimationFrame(function () { scheduled = false; place(); });
  }
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

  box.addEventListener('wheel', function (e) {
    var scrolls = box.scrollHeight > box.clientHeight;
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      pan((e.deltaX || e.deltaY) / plotW() * (view.t1 - view.t0));
    } else if (e.ctrlKey || e.metaKey || !scrolls) {
      // With lanes to scroll, the plain wheel scrolls them; Ctrl zooms.
      e.preventDefault();
      var rect = svg.getBoundingClientRect();
      zoom(Math.exp(e.deltaY * 0.002), tAt(e.clientX - rect.left));
    }
  }, { passive: false });

  var drag = null;
  box.addEventListener('pointerdown', function (e) {
    drag = { x: e.clientX, t0: view.t0, t1: view.t1, moved: false, id: e.pointerId };
  });
  window.addEventListener('pointermove', function (e) {
    if (!drag || e.pointerId !== drag.id) { return; }
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) {
      drag.moved = true;
      box.classList.add('dragging');
      tip.style.display = 'none';
    }
    if (drag.moved) {
      var dt = -dx / plotW() * (drag.t1 - drag.t0);
      view.t0 = drag.t0 + dt;
      view.t1 = drag.t1 + dt;
      clamp();
      redraw();
    }
  });
  window.addEventListener('pointerup', function (e) {
    if (!drag || e.pointerId !== drag.id) { return; }
    var moved = drag.moved;
    drag = null;
    box.classList.remove('dragging');
    if (!moved) {
      // A click or a tap: the cursor goes there, and a bar says what it is.
      var rect = svg.getBoundingClientRect();
      if (e.clientX - rect.left >= LABEL_W) { setCursor(tAt(e.clientX - rect.left)); }
      var hit = barOf(e.target);
      var wake = hit ? null : wakeAt(e.clientX, e.clientY);
      if (hit) { showTip(hit, e.clientX, e.clientY); } else if (wake) { showWakeTip(wake, e.clientX, e.clientY); }
    }
  });

  box.addEventListener('keydown', function (e) {
    var span = view.t1 - view.t0;
    var keys = {
      '+': function () { zoom(0.5, cursor === null ? (view.t0 + view.t1) / 2 : cursor); },
      '=': function () { zoom(0.5, cursor === null ? (view.t0 + view.t1) / 2 : cursor); },
      '-': function () { zoom(2, (view.t0 + view.t1) / 2); },
      'ArrowLeft': function () { pan(-span / 10); },
      'ArrowRight': function () { pan(span / 10); },
      '[': function () { setCursor((cursor || 0) - span / 100); },
      ']': function () { setCursor((cursor || 0) + span / 100); },
      '0': reset,
      'Home': function () { setCursor(0); },
      'End': function () { setCursor(end); }
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  document.getElementById('zoom-in').addEventListener('click', function () { zoom(0.5, (view.t0 + view.t1) / 2); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(2, (view.t0 + view.t1) / 2); });
  document.getElementById('zoom-reset').addEventListener('click', reset);
  var scrub = document.getElementById('scrub');
  scrub.max = String(Math.ceil(end));
  scrub.addEventListener('input', function () { setCursor(Number(scrub.value)); });
  window.addEventListener('resize', redraw);
  window.addEventListener('hashchange', fromHash);

  // `#t=12.5ms` (or `us`, `s`) puts the cursor there: a link to an
  // instant. `&item=42` opens item 42's tooltip: a link to an item.
  function fromHash() {
    var item = /(?:^#|&)item=([0-9]+)/.exec(location.hash);
    if (item) {
      runs.forEach(function (m) {
        m.run.bars.forEach(function (b) {
          if (String(b.id) === item[1]) { showTip({ m: m, b: b }, 8, 8); }
        });
      });
    }
    var m = /(?:^#|&)t=([0-9.]+)(us|µs|ms|s)?/.exec(location.hash);
    if (!m) { return false; }
    var unit = { us: 1, 'µs': 1, ms: 1e3, s: 1e6 }[m[2] || 'ms'];
    setCursor(Number(m[1]) * unit);
    return true;
  }

  place();
  if (!fromHash()) { setCursor(end / 2); }

  // ---- Helpers ------------------------------------------------------------
  function el(name, attrs) {
    var node = document.createElementNS(SVGNS, name);
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined) { node.setAttribute(k, attrs[k]); }
    });
    return node;
  }
  function text(cls, x0, y0, words) {
    var node = el('text', { 'class': cls, x: x0, y: y0 });
    node.textContent = words;
    return node;
  }
  function colour(kind) { return data.colours[kind] || data.colours.ok; }
  function ms(us) {
    if (Math.abs(us) >= 1e6) { return (us / 1e6).toFixed(us >= 1e7 ? 1 : 2) + ' s'; }
    if (Math.abs(us) >= 1e3) { return (us / 1e3).toFixed(us >= 1e5 ? 0 : 1) + ' ms'; }
    return Math.round(us) + ' µs';
  }
  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
    var n = raw / p;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }
  // Dark when the reader's system is, when `#theme=dark` says so, or when
  // the mdBook page that embeds this one uses a dark theme.
  function theme() {
    var dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
    try {
      var cls = window.parent !== window ? window.parent.document.documentElement.className : '';
      if (/\b(light|rust)\b/.test(cls)) { dark = false; }
      if (/\b(coal|navy|ayu)\b/.test(cls)) { dark = true; }
    } catch (e) { /* another origin: keep the system's setting */ }
    if (/theme=dark/.test(location.hash)) { dark = true; }
    if (/theme=light/.test(location.hash)) { dark = false; }
    document.documentElement.classList.toggle('dark', dark);
    document.documentElement.style.setProperty('--light', String(data.light));
  }
}());
