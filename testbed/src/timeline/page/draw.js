// Drawing: the lanes on one canvas, the time axis on another (it stays in
// view while the lanes scroll under it).
//
// Why a canvas: one SVG element per bar is 400,000 elements for 100,000
// items, and the browser relays them all out at every zoom. A canvas is one
// element; each frame paints only what is in view. The bars are written as
// pixels into a buffer (`Raster`), each rectangle a few row fills, then put
// on the canvas at once: 25,000 bars in view cost a few milliseconds this
// way, where as many canvas fills cost tens. Bars narrower than a few
// pixels are merged with their neighbours on the lane (a failure wins its
// pixel over a success), so the work per frame stops growing with the
// items once they are thinner than a pixel.

var LABEL_W = 46;   // the lane labels' column, px
var AXIS_H = 20;    // the time axis, px

// Sizes a canvas to `w` × `h` CSS pixels, sharp on a high-density screen,
// and returns its context drawing in CSS pixels.
function sizeCanvas(canvas, w, h) {
  var dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = w + 'px';
    canvas.style.height = h + 'px';
  }
  var ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

// A step of 1, 2 or 5 times a power of ten near `raw`.
function niceStep(raw) {
  var p = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
  var n = raw / p;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
}

function drawAxis(ctx, L, view, pal) {
  ctx.fillStyle = pal.bg;
  ctx.fillRect(0, 0, L.width, AXIS_H);
  ctx.fillStyle = pal.muted;
  ctx.strokeStyle = pal.grid;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'alphabetic';
  var step = niceStep((view.t1 - view.t0) / Math.max(2, Math.floor(L.plotW / 80)));
  ctx.beginPath();
  for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    var px = Math.round(L.x(t)) + 0.5;
    ctx.moveTo(px, AXIS_H - 5);
    ctx.lineTo(px, AXIS_H);
    ctx.fillText(ms(t), px + 2, AXIS_H - 7);
  }
  ctx.stroke();
  if (L.cursor !== null) {
    var c = L.x(L.cursor);
    if (c >= LABEL_W && c <= LABEL_W + L.plotW) {
      ctx.fillStyle = pal.cursor;
      ctx.fillRect(Math.round(c) - 1, 0, 2, AXIS_H);
    }
  }
}

// The lanes in view, scrolled down by `scrollY` px: backgrounds, grid and
// bars as pixels, then the words and ticks over them.
function drawLanes(ctx, L, runs, view, scrollY, pal, colours, light) {
  var h = L.visH, laneH = L.laneH;
  var dpr = window.devicePixelRatio || 1, W = Math.round(L.width * dpr), H = Math.round(h * dpr);
  if (!raster || raster.w !== W || raster.h !== H) { raster = new Raster(ctx, W, H, dpr); }
  var R = raster;
  // Moving the cursor or the keyboard's item changes no bar: the pixels
  // of the last frame are put back as they were.
  var key = [view.t0, view.t1, scrollY, pal.bg, light].join(' ');
  var same = R.key === key;
  R.key = key;
  var step = niceStep((view.t1 - view.t0) / Math.max(2, Math.floor(L.plotW / 80)));
  var shown = runs.filter(function (m) {
    var top = m.top - scrollY;
    return top + (m.lanes + 1) * laneH >= 0 && m.counterTop - scrollY - L.head <= h;
  });
  if (!same) { rasterLanes(R, L, shown, view, scrollY, pal, colours, light, step); }
  ctx.putImageData(R.img, 0, 0);
  ctx.font = '10px system-ui, sans-serif';
  shown.forEach(function (m) {
    var top = m.top - scrollY;
    if (L.head) {
      ctx.fillStyle = pal.fg;
      ctx.font = '600 11px system-ui, sans-serif';
      ctx.fillText(m.label, 2, m.counterTop - scrollY - 4);
      ctx.font = '10px system-ui, sans-serif';
    }
    labelCounters(ctx, L, m, view, m.counterTop - scrollY, pal);
    ctx.fillStyle = pal.muted;
    for (var row = -1; row < m.lanes; row++) {
      var y = top + (row + 1) * laneH;
      if (y + laneH >= 0 && y <= h && (row < 0 || laneH >= 10 || row % Math.ceil(10 / laneH) === 0)) {
        ctx.fillText(row < 0 ? 'loop' : '#' + row, 2, y + laneH - 3);
      }
    }
    drawWakes(ctx, L, m, view, top, pal);
  });
}


// The pixels under the words: the lanes' backgrounds, the outage, the
// grid and the bars.
function rasterLanes(R, L, shown, view, scrollY, pal, colours, light, step) {
  var h = L.visH, left = LABEL_W, right = LABEL_W + L.plotW, laneH = L.laneH;
  R.under = pal.bg;
  R.px.fill(R.shade(pal.bg, 1));
  shown.forEach(function (m) {
    var top = m.top - scrollY;
    for (var row = -1; row < m.lanes; row++) {
      var y = top + (row + 1) * laneH;
      if (y + laneH >= 0 && y <= h) { R.add(pal.lane, 1, left, y + 1, L.plotW, laneH - 2); }
    }
    if (m.outage) {
      var a = Math.max(left, L.x(m.outage[0] * 1000)), b = Math.min(right, L.x(m.outage[1] * 1000));
      if (b > a) { R.under = pal.lane; R.add(pal.muted, 0.15, a, top, b - a, (m.lanes + 1) * laneH); }
    }
  });
  R.under = pal.lane;
  for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    R.add(pal.grid, 1, Math.round(L.x(t)), 0, 1 / R.dpr, h);
  }
  shown.forEach(function (m) {
    var top = m.top - scrollY;
    rasterCounters(R, L, m, view, m.counterTop - scrollY, pal, colours);
    R.under = pal.lane;
    var dark = m.outcomes.map(function (o) { return R.shade(colours[o[0]] || colours.ok, 1); });
    var lite = m.outcomes.map(function (o) { return R.shade(colours[o[0]] || colours.ok, light); });
    for (var l = 0; l < m.lanes; l++) {
      var ly = top + (l + 1) * laneH;
      if (ly + laneH >= 0 && ly <= h) { drawLane(R, L, m, l, view, ly + 1, laneH - 2, dark, lite); }
    }
  });
}

// The loop's lane: a tick per wake-up, as tall as the share of connections
// ready; several wake-ups in one pixel column are one tick, the tallest.
function drawWakes(ctx, L, m, view, top, pal) {
  var laneH = L.laneH;
  if (!m.turns) {
    ctx.fillStyle = pal.muted;
    ctx.font = 'italic 10px system-ui, sans-serif';
    ctx.fillText('this stage has no event loop: no wake-ups to record', LABEL_W + 4, top + laneH - 4);
    ctx.font = '10px system-ui, sans-serif';
    return;
  }
  var w = m.turns.woke, ready = m.turns.ready;
  var k = lowerBound(w, view.t0, 0, w.length), col = -1, tallest = 0;
  ctx.fillStyle = pal.wake;
  var base = top + laneH - 1, full = laneH - 2, lanes = Math.max(1, m.lanes);
  for (; k <= w.length; k++) {
    var c = k < w.length && w[k] <= view.t1 ? Math.floor(L.x(w[k])) : -2;
    if (c !== col) {
      if (col >= 0) {
        var th = Math.max(2, full * Math.min(1, tallest / lanes));
        ctx.fillRect(col, base - th, 1, th);
      }
      if (c === -2) { break; }
      col = c;
      tallest = 0;
    }
    if (ready[k] > tallest) { tallest = ready[k]; }
  }
}

// The lanes' pixels, in device pixels, one 32-bit word each. A rectangle
// is given in CSS pixels and an opacity over the lane's background, which
// `shade` mixes once per colour (the buffer has no blending: a dark
// service time simply overwrites the light life under it).
function Raster(ctx, w, h, dpr) {
  this.img = ctx.createImageData(w, h);
  this.px = new Uint32Array(this.img.data.buffer);
  this.w = w; this.h = h; this.dpr = dpr; this.shades = {}; this.under = '#ffffff';
}
Raster.prototype.shade = function (colour, alpha) {
  var key = colour + alpha + this.under, v = this.shades[key];
  if (v === undefined) {
    var c = rgb(colour), u = rgb(this.under), mix = function (k) { return Math.round(c[k] * alpha + u[k] * (1 - alpha)); };
    // ImageData is R, G, B, A in memory: a little-endian word reads A B G R.
    v = this.shades[key] = ((255 << 24) | (mix(2) << 16) | (mix(1) << 8) | mix(0)) >>> 0;
  }
  return v;
};
Raster.prototype.add = function (colour, alpha, x, y, w, h) {
  this.fill(this.shade(colour, alpha), x, y, w, h);
};
// A rectangle of the pixel value `v` (from `shade`).
Raster.prototype.fill = function (v, x, y, w, h) {
  var d = this.dpr, x0 = Math.max(0, Math.round(x * d)), x1 = Math.min(this.w, Math.round((x + w) * d));
  var y0 = Math.max(0, Math.round(y * d)), y1 = Math.min(this.h, Math.round((y + h) * d));
  if (x1 <= x0) { if (x0 >= this.w) { return; } x1 = x0 + 1; }
  for (var row = y0; row < y1; row++) { this.px.fill(v, row * this.w + x0, row * this.w + x1); }
};
// A lane's rows of pixels are all alike: its bars are drawn into one row
// (`begin`, `span`), then copied to the others (`end`), one copy per row
// instead of one fill per bar per row.
Raster.prototype.begin = function (y, h) {
  var d = this.dpr;
  this.y0 = Math.max(0, Math.round(y * d));
  this.y1 = Math.min(this.h, Math.round((y + h) * d));
  if (!this.row || this.row.length !== this.w) { this.row = new Uint32Array(this.w); }
  if (this.y1 > this.y0) { this.row.set(this.px.subarray(this.y0 * this.w, (this.y0 + 1) * this.w)); }
};
Raster.prototype.span = function (v, x, w) {
  var d = this.dpr, x0 = Math.max(0, Math.round(x * d)), x1 = Math.min(this.w, Math.round((x + w) * d));
  if (x1 <= x0) { if (x0 >= this.w) { return; } x1 = x0 + 1; }
  this.row.fill(v, x0, x1);
};
Raster.prototype.end = function () {
  for (var r = this.y0; r < this.y1; r++) { this.px.set(this.row, r * this.w); }
};
var raster = null;

// `#rgb` or `#rrggbb` as [r, g, b].
function rgb(hex) {
  var h = hex.replace('#', '');
  if (h.length === 3) { h = h[0] + h[0] + h[1] + h[1] + h[2] + h[2]; }
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

// One lane's bars. A bar 3 px wide or more is drawn light for its life and
// dark for its service times; a narrower one joins the rectangle being
// built when it touches it, in the dark shade when mostly served. `dark`
// and `lite` are each outcome's two shades as pixel values. This loop runs
// for every bar in view, so it does no more than it must.
function drawLane(R, L, m, l, view, y, h, dark, lite) {
  var lo = m.laneFirst[l], hi = m.laneFirst[l + 1];
  var left = LABEL_W, right = LABEL_W + L.plotW, k = L.plotW / (view.t1 - view.t0), t0 = view.t0;
  var start = m.start, stop = m.stop, svcFirst = m.svcFirst;
  var i = lowerBound(start, t0 - m.maxDur[l], lo, hi);
  R.begin(y, h);
  var px0 = 0, px1 = -1, pv = -1, pRank = -1;
  for (; i < hi && start[i] < view.t1; i++) {
    if (stop[i] < t0) { continue; }
    var a = LABEL_W + (start[i] - t0) * k, b = LABEL_W + (stop[i] - t0) * k;
    if (a < left) { a = left; }
    if (b > right) { b = right; }
    var o = m.outcome[i], s0 = svcFirst[i], s1 = svcFirst[i + 1];
    if (b - a >= 3) {
      if (pv >= 0) { R.span(pv, px0, Math.max(1, px1 - px0)); pv = -1; }
      var xa = Math.round(a), xb = Math.round(b) - 1;
      R.span(s1 > s0 ? lite[o] : dark[o], xa, xb - xa);
      for (var s = s0; s < s1; s++) {
        var sa = Math.max(xa, Math.round(LABEL_W + (m.svcStart[s] - t0) * k));
        var sb = Math.min(xb, Math.round(LABEL_W + (m.svcEnd[s] - t0) * k));
        if (sb > sa) { R.span(dark[o], sa, sb - sa); }
      }
      continue;
    }
    var v = m.served[i] ? dark[o] : lite[o];
    var rank = m.failed[i] * 2 + m.served[i];
    if (pv >= 0 && a <= px1 + 1) {
      if (v === pv) { if (b > px1) { px1 = b; } continue; }
      if (a < px1) {
        // The same pixel: the more telling of the two shows.
        if (rank > pRank) { pv = v; pRank = rank; }
        if (b > px1) { px1 = b; }
        continue;
      }
    }
    if (pv >= 0) { R.span(pv, px0, Math.max(1, px1 - px0)); }
    px0 = a; px1 = Math.max(b, a + 1); pv = v; pRank = rank;
  }
  if (pv >= 0) { R.span(pv, px0, Math.max(1, px1 - px0)); }
  R.end();
}

// The cursor, the focused item and the chosen one, over the bars.
function drawMarks(ctx, L, runs, scrollY, pal, marks) {
  if (L.cursor !== null) {
    var c = L.x(L.cursor);
    if (c >= LABEL_W && c <= LABEL_W + L.plotW) {
      ctx.fillStyle = pal.cursor;
      ctx.fillRect(Math.round(c) - 0.75, 0, 1.5, L.visH);
    }
  }
  marks.forEach(function (mark) {
    if (!mark.at) { return; }
    var m = runs[mark.at.r], i = mark.at.i;
    var y = m.top - scrollY + (m.lane[i] + 1) * L.laneH;
    var a = Math.max(LABEL_W, L.x(m.start[i])), b = Math.min(LABEL_W + L.plotW, L.x(m.stop[i]));
    if (b < LABEL_W || a > LABEL_W + L.plotW) { return; }
    ctx.strokeStyle = mark.colour;
    ctx.lineWidth = 2;
    ctx.strokeRect(Math.round(a) - 1, y - 0.5, Math.max(3, Math.round(b - a)) + 1, L.laneH + 1);
    ctx.lineWidth = 1;
  });
}
