// A range of time and its totals: Shift+drag over the lanes, or `{` and `}`
// at the cursor. For the items that finished inside the range, each run
// says how many, their mean and 99th-percentile time from start to
// outcome, and how that time splits between the server applying service
// times and the rest, waiting on the client: the question a reader asks
// of a slow stretch ("were the items slow, or was the loop?").

// Totals of run `m` over [a, b] µs, as a line of HTML.
function selectionTotals(m, a, b, stacked) {
  var lives = [], served = 0, life = 0, logged = m.svcFirst[m.n] > 0, failed = 0;
  for (var i = 0; i < m.n; i++) {
    if (m.stop[i] < a || m.stop[i] > b) { continue; }
    var d = m.stop[i] - m.start[i];
    lives.push(d);
    life += d;
    failed += m.failed[i];
    for (var s = m.svcFirst[i]; s < m.svcFirst[i + 1]; s++) { served += m.svcEnd[s] - m.svcStart[s]; }
  }
  var who = stacked ? esc(m.label) + ': ' : '';
  if (!lives.length) { return who + 'no item finished between ' + ms(a) + ' and ' + ms(b) + '.'; }
  lives.sort(function (x, y) { return x - y; });
  var n = lives.length, p99 = lives[Math.min(n - 1, Math.ceil(0.99 * n) - 1)];
  return who + '<b>' + plural(n, 'item') + '</b> finished between ' + ms(a) + ' and ' + ms(b) +
    (failed ? ' (' + failed + ' failed)' : '') + ': mean ' + ms(life / n) + ', p99 ' + ms(p99) +
    (logged ? '; on average ' + ms(served / n) + ' at the server, ' +
      ms(Math.max(0, life - served) / n) + ' waiting on the client' : '') + '.';
}

// Shows the range [a, b] and its totals (`null`: no range).
function showSelection(range) {
  var panel = document.getElementById('selection');
  selection = range;
  if (!range) { panel.hidden = true; redraw(); return; }
  var a = Math.min(range.a, range.b), b = Math.max(range.a, range.b);
  document.getElementById('selection-text').innerHTML = runs.map(function (m) {
    return selectionTotals(m, a, b, stacked);
  }).join('<br>');
  panel.hidden = false;
  redraw();
}

// The range shaded over the lanes.
function drawSelection(ctx, range, pal) {
  if (!range) { return; }
  var a = Math.max(LABEL_W, L.x(Math.min(range.a, range.b)));
  var b = Math.min(LABEL_W + L.plotW, L.x(Math.max(range.a, range.b)));
  if (b <= a) { return; }
  ctx.globalAlpha = 0.15;
  ctx.fillStyle = pal.cursor;
  ctx.fillRect(a, 0, b - a, L.visH);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = pal.cursor;
  ctx.strokeRect(Math.round(a) + 0.5, 0.5, Math.round(b - a), L.visH - 1);
}
