// Tables that show every column, at any width.
//
// - A long name or list in a table's code (`tests::a_test_with_a_long_name`,
//   `src/pool/grants.rs`) may break after `_`, `::`, `/`, `.` or `,`: a <wbr>
//   is put there, so a narrow column wraps it at a seam rather than
//   cutting a word in half or pushing the table past the text column.
// - A table still wider than the column (on a phone, most tables of
//   numbers) is shown stacked: each row a small card, each cell under its
//   column's name (CSS `table.stacked` in ladder.css). Nothing is hidden
//   in a box that scrolls, and the column a paragraph names is in every
//   card. Wide again (a phone turned), the table is a table again.
(function () {
  'use strict';

  function seams(code) {
    if (code.textContent.length < 20 || code.querySelector('wbr')) { return; }
    var parts = code.textContent.split(/(?<=::|_|\/|\.|,)/);
    if (parts.length < 2) { return; }
    code.textContent = '';
    parts.forEach(function (part, i) {
      if (i > 0) { code.appendChild(document.createElement('wbr')); }
      code.appendChild(document.createTextNode(part));
    });
  }

  function label(table) {
    var heads = Array.prototype.map.call(table.querySelectorAll('thead th'), function (th) {
      return th.textContent.trim();
    });
    table.querySelectorAll('tbody tr').forEach(function (tr) {
      Array.prototype.forEach.call(tr.children, function (td, i) {
        td.setAttribute('data-column', heads[i] || '');
        // The cell's content as one piece, beside its column's name when
        // stacked (a cell's code and bold would each be a piece of its own).
        var value = document.createElement('span');
        while (td.firstChild) { value.appendChild(td.firstChild); }
        td.appendChild(value);
      });
    });
  }

  // As wide as ladder.css's small screens: a laptop's window shows tables
  // as tables, and a table too wide for it is a fault to fix, not to hide.
  var NARROW = 620;

  function fit() {
    document.querySelectorAll('main table').forEach(function (table) {
      var box = table.parentElement;
      table.classList.remove('stacked');
      box.classList.remove('holds-stacked');
      if (window.innerWidth > NARROW) { return; }
      if (box.scrollWidth > box.clientWidth + 1) {
        table.classList.add('stacked');
        box.classList.add('holds-stacked');
      }
    });
  }

  function start() {
    document.querySelectorAll('main table code').forEach(seams);
    document.querySelectorAll('main table').forEach(label);
    fit();
    // A table in a collapsed block has no width until the block opens.
    document.querySelectorAll('main details').forEach(function (d) {
      d.addEventListener('toggle', fit);
    });
    var pending = null;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(fit, 100);
    });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
