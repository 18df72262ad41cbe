// The model: the page's data decoded once into typed arrays, and the
// questions the page asks of it (which bar is here, what was in flight
// then), each answered by a binary search rather than a walk over every
// item, so that a run of 100,000 items answers as fast as one of 20.
//
// The data comes as columns of small numbers (see `page/data.rs`): bars
// grouped by lane and sorted by start, each start a gap since the previous
// bar on its lane ended, each end a duration. `decode` rebuilds absolute
// times. Times are µs since each run's start.

function decode(data) {
  return data.runs.map(function (run, r) {
    var n = run.id.length, lanes = run.per_lane.length;
    var m = {
      index: r, label: run.label, ideal: run.ideal, outage: run.outage_ms,
      lanes: lanes, n: n, outcomes: run.outcomes,
      id: new Float64Array(n), start: new Float64Array(n), stop: new Float64Array(n),
      lane: new Int32Array(n), outcome: new Int32Array(n),
      laneFirst: new Int32Array(lanes + 1), maxDur: new Float64Array(lanes),
      svcFirst: new Int32Array(n + 1),
      svcStart: new Float64Array(run.svc_at.length), svcEnd: new Float64Array(run.svc_at.length),
      failed: new Uint8Array(n), served: new Uint8Array(n), end: 0, byId: new Map(), turns: null
    };
    var i = 0, id = 0;
    for (var l = 0; l < lanes; l++) {
      m.laneFirst[l] = i;
      var before = 0;
      for (var k = 0; k < run.per_lane[l]; k++, i++) {
        id += run.id[i];
        m.id[i] = id;
        m.start[i] = before + run.gap[i];
        m.stop[i] = m.start[i] + run.dur[i];
        before = m.stop[i];
        m.lane[i] = l;
        m.outcome[i] = run.outcome[i];
        m.failed[i] = run.outcomes[run.outcome[i]][0] === 'ok' ? 0 : 1;
        m.svcFirst[i + 1] = m.svcFirst[i] + run.svc[i];
        var busy = 0;
        for (var s = m.svcFirst[i]; s < m.svcFirst[i + 1]; s++) {
          m.svcStart[s] = m.start[i] + run.svc_at[s];
          m.svcEnd[s] = m.svcStart[s] + run.svc_len[s];
          busy += run.svc_len[s];
        }
        // Drawn dark when narrower than a few pixels: no service log, or
        // at the server for half its life or more.
        m.served[i] = run.svc[i] === 0 || busy * 2 >= run.dur[i] ? 1 : 0;
        if (run.dur[i] > m.maxDur[l]) { m.maxDur[l] = run.dur[i]; }
        if (m.stop[i] > m.end) { m.end = m.stop[i]; }
        if (!m.byId.has(id)) { m.byId.set(id, i); }
      }
    }
    m.laneFirst[lanes] = n;
    // Every start and every end, sorted: how many had started (or ended)
    // by an instant is then one binary search.
    m.starts = Float64Array.from(m.start).sort();
    m.stops = Float64Array.from(m.stop).sort();
    // Every bar by start, for "the next failure after this one".
    m.byStart = Int32Array.from({ length: n }, function (_, j) { return j; })
      .sort(function (a, b) { return m.start[a] - m.start[b] || a - b; });
    if (run.turns) {
      var t = run.turns, woke = new Float64Array(t.woke.length), at = 0;
      for (var j = 0; j < woke.length; j++) { at += t.woke[j]; woke[j] = at; }
      if (at > m.end) { m.end = at; }
      m.turns = { woke: woke, slept: t.slept, busy: t.busy, ready: t.ready, timers: t.timers,
        ran: t.ran, done: t.done, dropped: t.dropped };
    }
    return m;
  });
}

// The first index in the sorted `a[lo..hi)` whose value is >= `v`.
function lowerBound(a, v, lo, hi) {
  while (lo < hi) {
    var mid = (lo + hi) >> 1;
    if (a[mid] < v) { lo = mid + 1; } else { hi = mid; }
  }
  return lo;
}

// The first index whose value is > `v`: how many are <= `v`.
function upperBound(a, v, lo, hi) {
  while (lo < hi) {
    var mid = (lo + hi) >> 1;
    if (a[mid] <= v) { lo = mid + 1; } else { hi = mid; }
  }
  return lo;
}

// The bar of lane `l` nearest to instant `t`, if within `tol` µs of it.
// A bar of a pixel or less can still be pointed at: the nearest one wins.
function barNear(m, l, t, tol) {
  var lo = m.laneFirst[l], hi = m.laneFirst[l + 1];
  var k = upperBound(m.start, t + tol, lo, hi) - 1;
  var best = -1, bestD = Infinity;
  for (var j = Math.max(lo, k - 1); j <= Math.min(hi - 1, k + 1); j++) {
    var d = t < m.start[j] ? m.start[j] - t : (t > m.stop[j] ? t - m.stop[j] : 0);
    if (d < bestD) { best = j; bestD = d; }
  }
  return bestD <= tol ? best : -1;
}

// The bar on lane `l` in flight at `t`, or -1: bars on one lane follow one
// another, so it is the last to start at or before `t`, if not over.
function barAt(m, l, t) {
  var k = upperBound(m.start, t, m.laneFirst[l], m.laneFirst[l + 1]) - 1;
  return k >= m.laneFirst[l] && t < m.stop[k] ? k : -1;
}

// What run `m` was doing at `t`: in flight, done.
function countsAt(m, t) {
  var started = upperBound(m.starts, t, 0, m.n);
  var done = upperBound(m.stops, t, 0, m.n);
  return { inFlight: started - done, done: done };
}

// Whether bar `i` was at the server at `t` (null: the server kept no log).
function serving(m, i, t) {
  if (m.svcFirst[i] === m.svcFirst[i + 1]) { return null; }
  for (var s = m.svcFirst[i]; s < m.svcFirst[i + 1]; s++) {
    if (m.svcStart[s] <= t && t < m.svcEnd[s]) { return true; }
  }
  return false;
}

// The wake-up of run `m`'s loop nearest to `t`, if within `tol` µs.
function wakeNear(m, t, tol) {
  if (!m.turns || !m.turns.woke.length) { return -1; }
  var w = m.turns.woke, k = lowerBound(w, t, 0, w.length);
  var best = k > 0 && (k === w.length || t - w[k - 1] < w[k] - t) ? k - 1 : k;
  return Math.abs(w[best] - t) <= tol ? best : -1;
}

// The lines that describe bar `i` of run `m` (HTML, escaped).
function describeBar(m, i, stacked) {
  var o = m.outcomes[m.outcome[i]], life = m.stop[i] - m.start[i], served = 0, phases = [];
  for (var s = m.svcFirst[i]; s < m.svcFirst[i + 1]; s++) {
    served += m.svcEnd[s] - m.svcStart[s];
    phases.push(ms(m.svcEnd[s] - m.svcStart[s]));
  }
  return [
    '<b>item ' + m.id[i] + '</b> on connection #' + m.lane[i] + (stacked ? ' (' + esc(m.label) + ')' : ''),
    ms(m.start[i]) + ' → ' + ms(m.stop[i]) + ' (' + ms(life) + ')',
    phases.length ? 'phases: ' + phases.join(' + ') : 'phases: not logged by the server',
    phases.length ? 'service ' + ms(served) + ', waiting ' + ms(Math.max(0, life - served)) : '',
    'outcome: ' + esc(o[2]),
    'failure: ' + (o[1] ? esc(o[1]) : 'none') + (o[0] === 'wrong' ? ' (the report found this row wrong)' : '')
  ].filter(Boolean);
}

function describeWake(m, k, stacked) {
  var t = m.turns;
  return [
    '<b>wake-up ' + (k + 1) + '</b> of the loop' + (stacked ? ' (' + esc(m.label) + ')' : ''),
    'at ' + ms(t.woke[k]) + ', after sleeping ' + ms(t.slept[k]),
    plural(t.ready[k], 'connection') + ' ready, ' + plural(t.timers[k], 'timer') + ' fired',
    (t.ran[k] ? t.ran[k] + ' fibers or tasks ran, ' : '') + plural(t.done[k], 'item') + ' finished',
    'then worked ' + ms(t.busy[k]) + ' before waiting again'
  ];
}

function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }

function ms(us) {
  if (Math.abs(us) >= 1e6) { return (us / 1e6).toFixed(us >= 1e7 ? 1 : 2) + ' s'; }
  if (Math.abs(us) >= 1e3) { return (us / 1e3).toFixed(us >= 1e5 ? 0 : 1) + ' ms'; }
  return Math.round(us) + ' µs';
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, function (c) {
    return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
  });
}
