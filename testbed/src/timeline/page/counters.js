// Counter tracks: two rows above each run's lanes, read off the bars.
//
// "in flight" is how many items had started and not finished, at each
// pixel's instant; its top is every lane busy. "items/s" is the
// throughput over a sliding window (a sixtieth of the time in view, so it
// smooths the same at every zoom), as tall as the highest in view. A lane
// full of bars says the same thing one connection at a time; these say it
// for the run, and show where it ramps up, stalls and drains.

var COUNTER_H = 22;  // each counter row, px

// The window the throughput is averaged over: a sixtieth of the view.
function rateWindow(view) { return Math.max(1, (view.t1 - view.t0) / 60); }

// Items finished in the window before `t`, per second.
function rateAt(m, t, w) {
  return (upperBound(m.stops, t, 0, m.n) - upperBound(m.stops, t - w, 0, m.n)) / (w / 1e6);
}

// The two rows of run `m`, their tops at `top` (px in the canvas), drawn as
// pixels into `R`: one column per pixel of the plot.
function rasterCounters(R, L, m, view, top, pal, colours) {
  var w = rateWindow(view), cols = Math.max(1, Math.floor(L.plotW));
  var inFlight = new Float64Array(cols), rate = new Float64Array(cols), peak = 0;
  for (var c = 0; c < cols; c++) {
    var t = view.t0 + (c + 0.5) / L.plotW * (view.t1 - view.t0);
    inFlight[c] = countsAt(m, t).inFlight;
    rate[c] = rateAt(m, t, w);
    if (rate[c] > peak) { peak = rate[c]; }
  }
  var full = COUNTER_H - 3, lanes = Math.max(1, m.lanes);
  R.add(pal.lane, 1, LABEL_W, top + 1, L.plotW, COUNTER_H - 2);
  R.add(pal.lane, 1, LABEL_W, top + COUNTER_H + 1, L.plotW, COUNTER_H - 2);
  R.under = pal.lane;
  for (c = 0; c < cols; c++) {
    var a = Math.round(full * Math.min(1, inFlight[c] / lanes));
    if (a > 0) { R.add(colours.ok, 1, LABEL_W + c, top + COUNTER_H - 1 - a, 1, a); }
    var b = peak > 0 ? Math.round(full * rate[c] / peak) : 0;
    if (b > 0) { R.add(pal.muted, 1, LABEL_W + c, top + 2 * COUNTER_H - 1 - b, 1, b); }
  }
  m.peakRate = peak;
}

// Their labels, and the scale of each, over the pixels.
function labelCounters(ctx, L, m, view, top, pal) {
  ctx.fillStyle = pal.muted;
  ctx.fillText('in flight', 2, top + COUNTER_H - 7);
  ctx.fillText('items/s', 2, top + 2 * COUNTER_H - 7);
  scale(ctx, L, 'top: ' + m.lanes + ' (every lane)', top, pal);
  scale(ctx, L, 'top: ' + Math.round(m.peakRate || 0) + ' items/s over ' + ms(rateWindow(view)),
    top + COUNTER_H, pal);
}

// A row's scale, at its right end, on a patch of the lane's colour so that
// it reads over the graph.
function scale(ctx, L, words, top, pal) {
  var w = ctx.measureText(words).width + 6, x = LABEL_W + L.plotW - w;
  ctx.globalAlpha = 0.85;
  ctx.fillStyle = pal.lane;
  ctx.fillRect(x, top + 1, w, 13);
  ctx.globalAlpha = 1;
  ctx.fillStyle = pal.fg;
  ctx.fillText(words, x + 3, top + 11);
}

// What a counter row says at instant `t`, for the tooltip.
function describeCounter(m, row, t, view) {
  if (row === 0) {
    return ['<b>' + countsAt(m, t).inFlight + ' in flight</b> at ' + ms(t) + ' (of ' + m.lanes + ' lanes)'];
  }
  var w = rateWindow(view);
  return ['<b>' + rateAt(m, t, w).toFixed(1) + ' items/s</b> over the ' + ms(w) + ' to ' + ms(t)];
}
