// The executor's tasks, under the lanes, on the same time axis: a row per
// task (tasks that never lived at once share one), a bar per poll, an
// arrow from each wake to the poll it caused, and two counter rows, tasks
// alive and the ready queue's length.
//
// The lanes say which connection waited; these say which task held the
// thread. A poll of 200 ms is a gap in every lane above it and one long
// red bar here; a task that wakes itself before every `Pending` is a
// purple streak of polls that never lets the loop sleep: such a spin, of
// thousands of polls each woken by the one before, comes as one bar
// (flag 16) that counts them, with one arrow into it. Only the rows of
// the busiest tasks come in the data (see `page/task_data.rs`), and the
// arrows are drawn for the polls in view, when there are few enough to
// tell apart.
//
// `#tasks` states the whole trace: data-polls, data-wakes,
// data-self-wakes, data-long-polls, data-longest-poll-us count every poll
// and wake kept, inside a spin or not; data-spins is how many spins were
// merged into a bar each, and data-arrows how many arrows the data holds
// (a bar's cause, one per spin). The canvas says what its last frame drew:
// data-bars-drawn, data-arrows-drawn, data-paint-ms.

var TASK_ROWS_H = 480;   // the rows at most, px
var MAX_ARROWS = 1500;   // arrows drawn at most; past that, zoom in
var WAKE_WORDS = ['spawned', 'a ready socket', 'a timer', 'task ', 'itself', 'another thread'];

// The columns of `page/task_data.rs` as typed arrays with absolute times.
function decodeTasks(d) {
  var n = d.row.length, w = d.wake_at.length, c = d.count_at.length, rows = d.rows.length;
  var t = {
    d: d, n: n, rows: rows, start: new Float64Array(n), busy: Float64Array.from(d.busy),
    row: Int32Array.from(d.row), task: Float64Array.from(d.task), flags: Uint8Array.from(d.flags),
    cause: new Int32Array(n).fill(-1), wakeAt: new Float64Array(w), wakeBy: Uint8Array.from(d.wake_by),
    wakeRow: Int32Array.from(d.wake_row), countAt: new Float64Array(c),
    alive: Uint32Array.from(d.alive), ready: Uint32Array.from(d.ready),
    polls: new Uint32Array(n).fill(1), spinBusy: new Float64Array(n),
    maxBusy: 0, peakAlive: 1, peakReady: 1, end: 0, arrows: 0
  };
  var at = 0, k = 0, cause = 0, s = 0;
  for (var i = 0; i < n; i++) {
    at += d.at[i];
    t.start[i] = at;
    if (t.flags[i] & 8) { cause += d.cause[k++]; t.cause[i] = cause; t.arrows++; }
    if (t.flags[i] & 16) { t.polls[i] = d.spin_polls[s]; t.spinBusy[i] = d.spin_busy[s++]; }
    if (t.busy[i] > t.maxBusy) { t.maxBusy = t.busy[i]; }
    if (at + t.busy[i] > t.end) { t.end = at + t.busy[i]; }
  }
  at = 0;
  for (i = 0; i < w; i++) { at += d.wake_at[i]; t.wakeAt[i] = at; }
  at = 0;
  for (i = 0; i < c; i++) {
    at += d.count_at[i];
    t.countAt[i] = at;
    if (t.alive[i] > t.peakAlive) { t.peakAlive = t.alive[i]; }
    if (t.ready[i] > t.peakReady) { t.peakReady = t.ready[i]; }
  }
  if (at > t.end) { t.end = at; }
  // Each row's polls, by start: pointing at a bar is a binary search.
  t.rowFirst = new Int32Array(rows + 1);
  for (i = 0; i < n; i++) { t.rowFirst[t.row[i] + 1]++; }
  for (var r = 0; r < rows; r++) { t.rowFirst[r + 1] += t.rowFirst[r]; }
  var fill = Int32Array.from(t.rowFirst);
  t.byRow = new Int32Array(n);
  t.rowStart = new Float64Array(n);
  for (i = 0; i < n; i++) { var j = fill[t.row[i]]++; t.byRow[j] = i; t.rowStart[j] = t.start[i]; }
  return t;
}

// The section: each run's block of rows, laid out once, and the figures
// the tests read.
function setupTasks(runs, stacked) {
  var section = document.getElementById('tasks');
  if (!section) { return null; }
  var withTasks = runs.filter(function (m) { return m.tasks; });
  var sum = function (f) { return withTasks.reduce(function (s, m) { return s + f(m.tasks); }, 0); };
  var rowsDrawn = sum(function (t) { return t.rows; });
  var rowH = Math.max(6, Math.min(16, Math.floor(TASK_ROWS_H / Math.max(1, rowsDrawn))));
  var trackH = Math.max(14, rowH);  // the outside track: tall enough for its words
  var y = 0;
  withTasks.forEach(function (m) {
    var t = m.tasks;
    t.head = stacked ? 16 : 0;
    t.top = y + t.head;
    t.outside = t.top + 2 * COUNTER_H;          // the track of wakes from outside
    t.rowsTop = t.outside + trackH;
    y = t.rowsTop + t.rows * rowH + (t.d.hidden_rows ? 16 : 4);
  });
  section.setAttribute('data-polls', String(sum(function (t) { return t.d.polls; })));
  section.setAttribute('data-wakes', String(sum(function (t) { return t.d.wakes; })));
  section.setAttribute('data-arrows', String(sum(function (t) { return t.arrows; })));
  section.setAttribute('data-spins', String(sum(function (t) { return t.d.spins; })));
  section.setAttribute('data-long-polls', String(sum(function (t) { return t.d.long_polls; })));
  section.setAttribute('data-self-wakes', String(sum(function (t) { return t.d.self_wakes; })));
  section.setAttribute('data-longest-poll-us', String(withTasks.reduce(function (a, m) {
    return Math.max(a, m.tasks.d.longest_poll_us); }, 0)));
  document.getElementById('tasks-summary').innerHTML = withTasks.map(function (m) {
    var d = m.tasks.d;
    return (stacked ? esc(m.label) + ': ' : '') + plural(d.polls, 'poll') + ' of ' + plural(d.tasks, 'task') +
      ', ' + plural(d.wakes, 'wake') + '; longest poll ' + ms(d.longest_poll_us) + ', ' +
      d.long_polls + ' of ' + ms(d.long_us) + ' or more; ' + plural(d.self_wakes, 'self-wake') +
      (d.spins ? ' (' + plural(d.spins, 'spin') + ', each drawn as one bar)' : '') +
      (d.hidden_rows ? '; the ' + plural(d.rows.length, 'busiest row') + ' drawn, ' + plural(d.hidden_tasks, 'task') +
        ' on ' + d.hidden_rows + ' more rows not drawn (' + plural(d.hidden_polls, 'poll') + ')' : '') +
      (d.dropped ? '; ' + d.dropped + ' more records not kept' : '');
  }).join('<br>');
  var canvas = document.getElementById('task-plot');
  canvas.setAttribute('aria-label', 'polls of the tasks over time: ' +
    document.getElementById('tasks-summary').textContent);
  return { runs: withTasks, rowH: rowH, trackH: trackH, height: y, canvas: canvas, axis: document.getElementById('task-axis'),
    stacked: stacked, drawnArrows: 0, drawnBars: 0 };
}

// The y of the middle of row `r` (-1: the outside track) of tasks `t`.
function taskRowY(P, t, r) { return r < 0 ? t.outside + P.trackH / 2 : t.rowsTop + (r + 0.5) * P.rowH; }

// The height of row `r` (-1: the outside track).
function taskRowH(P, r) { return r < 0 ? P.trackH : P.rowH; }

// The rows, counters and ticks as pixels (`Raster`, draw.js: 200,000
// polls in view cost one array fill each, where as many canvas fills cost
// a tenth of a second), then the words, arrows and cursor over them.
function paintTasks(P, L, view, pal, colours) {
  var began = performance.now();
  var ctx = sizeCanvas(P.canvas, L.width, P.height), rowH = P.rowH;
  drawAxis(sizeCanvas(P.axis, L.width, AXIS_H), L, view, pal);
  var dpr = window.devicePixelRatio || 1, W = Math.round(L.width * dpr), H = Math.round(P.height * dpr);
  if (!P.raster || P.raster.w !== W || P.raster.h !== H) { P.raster = new Raster(ctx, W, H, dpr); }
  var R = P.raster;
  R.under = pal.bg;
  R.px.fill(R.shade(pal.bg, 1));
  var k = L.plotW / (view.t1 - view.t0), right = LABEL_W + L.plotW;
  var x = function (t) { return LABEL_W + (t - view.t0) * k; };
  var arrows = [];
  P.drawnBars = 0;
  P.runs.forEach(function (m) {
    var t = m.tasks;
    R.under = pal.bg;
    for (var r = -1; r < t.rows; r++) {
      R.add(pal.lane, 1, LABEL_W, taskRowY(P, t, r) - taskRowH(P, r) / 2 + 0.5, L.plotW, taskRowH(P, r) - 1);
    }
    R.under = pal.lane;
    taskCounters(R, L, t, view, pal, colours);
    var poll = R.shade(colours.poll, 1), self = R.shade(colours.self, 1), long = R.shade(colours.long, 1);
    var longs = [], inView = [];
    for (r = 0; r < t.rows; r++) {
      var y = t.rowsTop + r * rowH, lo = t.rowFirst[r], hi = t.rowFirst[r + 1];
      R.begin(y + 1, rowH - 2);
      for (var j = lowerBound(t.rowStart, view.t0 - t.maxBusy, lo, hi); j < hi && t.rowStart[j] < view.t1; j++) {
        var i = t.byRow[j], b = x(t.start[i] + t.busy[i]);
        if (b < LABEL_W) { continue; }
        var a = Math.max(LABEL_W, x(t.start[i])), f = t.flags[i];
        if (f & 8) { inView.push(i); }
        if (f & 2) { longs.push(i); }
        R.span(f & 2 ? long : f & 4 ? self : poll, a, Math.max(1, Math.min(right, b) - a));
        P.drawnBars++;
      }
      R.end();
    }
    // A long poll: a bracket above and below too, seen at any width.
    longs.forEach(function (i) {
      var a = Math.max(LABEL_W, x(t.start[i])), w = Math.max(2, Math.min(right, x(t.start[i] + t.busy[i])) - a);
      var y = t.rowsTop + t.row[i] * rowH;
      R.add(colours.long, 1, a, y, w, 1);
      R.add(colours.long, 1, a, y + rowH - 1, w, 1);
    });
    // Wakes from outside as ticks on their track, self-wakes on their
    // task's row; several in one pixel column of a track are one tick.
    var tick = new Float64Array(t.rows + 1).fill(-1);
    for (var w = lowerBound(t.wakeAt, view.t0, 0, t.wakeAt.length); w < t.wakeAt.length && t.wakeAt[w] <= view.t1; w++) {
      var by = t.wakeBy[w], on = by === 4 ? t.wakeRow[w] : -1, wx = Math.floor(x(t.wakeAt[w]));
      if (by === 3 || (by === 4 && on < 0) || tick[on + 1] === wx) { continue; }
      tick[on + 1] = wx;
      R.add(by === 4 ? colours.self : pal.muted, 1, wx, taskRowY(P, t, on) - taskRowH(P, on) / 2 + 1,
        by === 4 ? 2 : 1, taskRowH(P, on) - 2);
    }
    arrows.push(inView);
  });
  ctx.putImageData(R.img, 0, 0);
  ctx.font = '10px system-ui, sans-serif';
  P.drawnArrows = 0;
  P.runs.forEach(function (m, q) {
    var t = m.tasks, inView = arrows[q];
    if (t.head) { ctx.fillStyle = pal.fg; ctx.fillText(m.label, 2, t.top - 4); }
    labelTaskCounters(ctx, L, t, pal);
    if (inView.length > MAX_ARROWS) {
      scale(ctx, L, plural(inView.length, 'wake') + ' in view: zoom in for their arrows', t.outside, pal);
    } else {
      drawArrows(ctx, P, t, inView, x, colours.arrow);
      P.drawnArrows += inView.length;
    }
    // The rows' names, thinned out when rows are thin.
    ctx.fillStyle = pal.muted;
    ctx.fillText('woken', 2, taskRowY(P, t, -1) + 3);
    for (var r = 0; r < t.rows; r += Math.ceil(10 / rowH)) {
      ctx.fillText(t.d.rows[r].replace('task ', ''), 2, taskRowY(P, t, r) + 3);
    }
    if (t.d.hidden_rows) {
      ctx.fillText('+ ' + plural(t.d.hidden_tasks, 'task') + ' on ' + t.d.hidden_rows +
        ' quieter rows, not drawn', LABEL_W + 4, t.rowsTop + t.rows * rowH + 11);
    }
  });
  if (L.cursor !== null && x(L.cursor) >= LABEL_W && x(L.cursor) <= right) {
    ctx.fillStyle = pal.cursor;
    ctx.fillRect(Math.round(x(L.cursor)) - 0.75, 0, 1.5, P.height);
  }
  P.canvas.setAttribute('data-arrows-drawn', String(P.drawnArrows));
  P.canvas.setAttribute('data-bars-drawn', String(P.drawnBars));
  // For the page's tests and a reader timing a large trace: this frame's cost.
  P.canvas.setAttribute('data-paint-ms', (performance.now() - began).toFixed(1));
}

// An arrow from the wake of each poll in `polls` (on its waker's row, or
// the outside track) to the poll's start.
function drawArrows(ctx, P, t, polls, x, colour) {
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 1;
  polls.forEach(function (p) {
    var c = t.cause[p], x0 = Math.max(LABEL_W, x(t.wakeAt[c])), y0 = taskRowY(P, t, t.wakeRow[c]);
    var x1 = Math.max(LABEL_W, x(t.start[p])), y1 = taskRowY(P, t, t.row[p]);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    var ang = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 5 * Math.cos(ang - 0.45), y1 - 5 * Math.sin(ang - 0.45));
    ctx.lineTo(x1 - 5 * Math.cos(ang + 0.45), y1 - 5 * Math.sin(ang + 0.45));
    ctx.fill();
  });
}

// The value of counter `values` at `t`: the last sample at or before it.
function sampleAt(t, at, values) {
  var k = upperBound(at, t, 0, at.length) - 1;
  return k < 0 ? 0 : values[k];
}

// Tasks alive and the ready queue, one column per pixel, each as tall as
// its peak over the whole run.
function taskCounters(R, L, t, view, pal, colours) {
  [[t.alive, t.peakAlive], [t.ready, t.peakReady]].forEach(function (c, n) {
    var top = t.top + n * COUNTER_H, full = COUNTER_H - 3, colour = n ? pal.muted : colours.poll;
    R.add(pal.lane, 1, LABEL_W, top + 1, L.plotW, COUNTER_H - 2);
    for (var col = 0; col < L.plotW; col++) {
      var v = sampleAt(view.t0 + (col + 0.5) / L.plotW * (view.t1 - view.t0), t.countAt, c[0]);
      var h = Math.round(full * v / c[1]);
      if (h > 0) { R.add(colour, 1, LABEL_W + col, top + COUNTER_H - 1 - h, 1, h); }
    }
  });
}

function labelTaskCounters(ctx, L, t, pal) {
  [[t.peakAlive, 'alive'], [t.peakReady, 'ready']].forEach(function (c, n) {
    var top = t.top + n * COUNTER_H;
    ctx.fillStyle = pal.muted;
    ctx.fillText(c[1], 2, top + COUNTER_H - 7);
    scale(ctx, L, 'top: ' + c[0] + ' ' + c[1], top, pal);
  });
}

// What is under client point (cx, cy) of the task canvas: lines to show.
function taskHit(P, L, view, cx, cy) {
  var rect = P.canvas.getBoundingClientRect(), px = cx - rect.left, y = cy - rect.top;
  if (px < LABEL_W) { return null; }
  var at = view.t0 + (px - LABEL_W) / L.plotW * (view.t1 - view.t0), tol = 3 / L.plotW * (view.t1 - view.t0);
  for (var q = 0; q < P.runs.length; q++) {
    var m = P.runs[q], t = m.tasks, who = P.stacked ? ' (' + esc(m.label) + ')' : '';
    if (y >= t.top && y < t.outside) {
      var n = Math.floor((y - t.top) / COUNTER_H);
      return ['<b>' + sampleAt(at, t.countAt, n ? t.ready : t.alive) + (n ? ' tasks ready' : ' tasks alive') +
        '</b> at ' + ms(at) + who];
    }
    var r = Math.floor((y - t.rowsTop) / P.rowH);
    if (y < t.rowsTop || r >= t.rows) { continue; }
    var lo = t.rowFirst[r], hi = t.rowFirst[r + 1];
    var k = upperBound(t.rowStart, at + tol, lo, hi) - 1;
    if (k < lo) { return null; }
    var i = t.byRow[k];
    if (at > t.start[i] + t.busy[i] + tol) { return null; }
    return describePoll(t, i, who);
  }
  return null;
}

function describePoll(t, i, who) {
  var c = t.cause[i], spin = t.flags[i] & 16, lines = spin ? [
    '<b>task ' + t.task[i] + '</b>, a spin: ' + t.polls[i].toLocaleString('en-US') +
      ' polls, each woken by the one before' + who,
    ms(t.start[i]) + ' → ' + ms(t.start[i] + t.busy[i]) + ': its polls held the thread ' + ms(t.spinBusy[i]) +
      ' in all, and the loop never slept'
  ] : [
    '<b>task ' + t.task[i] + '</b>, a poll' + who,
    ms(t.start[i]) + ' → ' + ms(t.start[i] + t.busy[i]) + ': held the thread ' + ms(t.busy[i]) +
      (t.flags[i] & 2 ? ' (long: ' + ms(t.d.long_us) + ' or more, nothing else ran)' : '')
  ];
  if (c >= 0) {
    var by = t.wakeBy[c], from = t.d.wake_from[c];
    lines.push((spin ? 'its first poll woken by ' : 'woken by ') + (by === 3 ? 'task ' + from : WAKE_WORDS[by]) +
      ' at ' + ms(t.wakeAt[c]) + ', ' + ms(Math.max(0, t.start[i] - t.wakeAt[c])) +
      (spin ? ' before it' : ' before this poll'));
  } else {
    lines.push('its wake was not kept');
  }
  if (t.flags[i] & 1) { lines.push('it returned Ready: the task ended'); }
  return lines;
}
