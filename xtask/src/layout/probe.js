// Injected into a page of the built book by `cargo xtask check-layout`,
// which loads the page in an iframe of the width being checked. Once the
// page and its figures have loaded, it measures what a reader at that
// width would see and writes one finding per line into the parent page,
// which headless Chromium prints with --dump-dom.
//
// Findings, each `KIND<TAB>where<TAB>what`:
// - overflow: an element wider than the text column and not inside a box
//   that scrolls (a code block that scrolls is fine; a table cut off at
//   the column's edge is not);
// - wrapped: a block of characters that is a picture (a diagram, an
//   aligned transcript) broken over more lines than it has;
// - small-text: a figure's text rendered under 11 px at this width;
// - contrast: a figure's text whose colour is too close to what is
//   behind it (under WCAG AA's 4.5:1 for text of this size);
// - overlap: a figure's text drawn over another of its texts;
// - scrolled-table: a table whose columns do not all show, hidden in the
//   box it scrolls in or clipped (check-layout fails it at the widest
//   width only: a phone may scroll a table, a laptop must not);
// - cut-word: a word of a table cut in half by the edge of the box it
//   scrolls in (headless, like a phone, shows no scroll bar: half a word
//   is the only cue that there is more), or broken over two lines.
(function () {
  "use strict";
  const MIN_PX = 11;
  const MIN_CONTRAST = 4.5;
  const findings = [];
  const describe = (el) => {
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    if (el.classList && el.classList.length) name += "." + [...el.classList].join(".");
    const heading = [...document.querySelectorAll("main h1, main h2, main h3")]
      .filter((h) => h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)
      .pop();
    const under = heading ? ' under "' + heading.textContent.trim().slice(0, 40) + '"' : "";
    const text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60);
    return name + under + ': "' + text + '"';
  };
  const scrolls = (el) => {
    const o = getComputedStyle(el).overflowX;
    return o === "auto" || o === "scroll";
  };

  function columnOverflow(main) {
    const right = main.getBoundingClientRect().right + 1;
    const walk = (el) => {
      if (scrolls(el)) {
        // The box itself must fit; what is inside may scroll.
        const box = el.getBoundingClientRect();
        if (box.right > right) {
          findings.push(["overflow", describe(el),
            "a scrolling box " + Math.round(box.right - right + 1) + " px past the column (" +
            Math.round(box.width) + " px wide in a column of " + Math.round(main.clientWidth) + ")"]);
        }
        return;
      }
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > right) {
        const o = getComputedStyle(el).overflowX;
        const why = o === "hidden" || o === "clip" ? "cut off at its box" : "past the column";
        findings.push(["overflow", describe(el), Math.round(box.right - right + 1) + " px " + why]);
        return;
      }
      for (const child of el.children) walk(child);
    };
    for (const child of main.children) walk(child);
  }

  // The words of `el`'s text, each with its on-screen boxes.
  function words(el) {
    const found = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // A break at a hyphen, a dash or a seam of a name (`_`, `::`, `/`,
      // `.`, where the book's tables.js puts a <wbr>; `,` in a list) is not
      // a cut.
      const re = /[^\s\-–_:\/.,]+/g;
      let m;
      while ((m = re.exec(node.data)) !== null) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        found.push({ text: m[0], rects: [...range.getClientRects()].filter((r) => r.width > 0) });
      }
    }
    return found;
  }

  function tables(main) {
    for (const table of main.querySelectorAll("table")) {
      // The box the table is shown in: the nearest that scrolls or clips.
      let box = table.parentElement;
      while (box && box !== main) {
        const o = getComputedStyle(box).overflowX;
        if (o !== "visible") break;
        box = box.parentElement;
      }
      const hidden = box && box !== main ? box.scrollWidth - box.clientWidth : 0;
      if (hidden > 1) {
        const clipped = ["hidden", "clip"].includes(getComputedStyle(box).overflowX);
        findings.push(["scrolled-table", describe(table),
          hidden + " px of its columns " + (clipped ? "clipped" : "hidden in a scroll box") +
          " (" + Math.round(table.getBoundingClientRect().width) + " px wide in a box of " + box.clientWidth + ")"]);
      }
      const edge = hidden > 1 ? box.getBoundingClientRect().left + box.clientLeft + box.clientWidth : Infinity;
      const cut = [];
      for (const w of words(table)) {
        const lines = new Set(w.rects.map((r) => Math.round(r.top)));
        if (lines.size > 1) {
          cut.push('"' + w.text + '" broken over ' + lines.size + " lines");
        } else if (w.rects.some((r) => r.left < edge - 1 && r.right > edge + 1)) {
          cut.push('"' + w.text + '" cut by the edge of its scroll box');
        }
      }
      if (cut.length) {
        findings.push(["cut-word", describe(table), cut.slice(0, 3).join("; ") +
          (cut.length > 3 ? " and " + (cut.length - 3) + " more" : "")]);
      }
    }
  }

  function wrappedDiagrams(main) {
    for (const pre of main.querySelectorAll("pre")) {
      const code = pre.querySelector("code") || pre;
      const style = getComputedStyle(code);
      // A console session wraps on purpose: its long commands stay whole.
      if (style.whiteSpace === "pre" || code.classList.contains("language-console")) continue;
      const lines = code.textContent.replace(/\n$/, "").split("\n");
      // A picture made of characters: box-drawing, arrows, or runs of
      // spaces that align columns.
      const picture = lines.some((l) => /[─│┌┐└┘├┤┬┴┼═║▶◀→←↑↓]|\S {3,}\S|[|+]-{3,}/.test(l));
      if (!picture) continue;
      const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
      const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
      const rendered = Math.round((code.getBoundingClientRect().height - padding) / lineHeight);
      if (rendered > lines.length) {
        findings.push(["wrapped", describe(pre), lines.length + " lines shown on " + rendered]);
      }
    }
  }

  const rgb = (colour) => {
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(colour || "");
    if (!m) return null;
    if (m[4] !== undefined && parseFloat(m[4]) === 0) return null;
    return [m[1], m[2], m[3]].map(Number);
  };
  const luminance = ([r, g, b]) => {
    const c = [r, g, b].map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };

  function figureTexts(svg, name) {
    const win = svg.ownerDocument.defaultView;
    const shapes = [...svg.querySelectorAll("rect, path, circle, polygon")];
    const placed = [];
    for (const text of svg.querySelectorAll("text")) {
      if (!text.textContent.trim()) continue;
      const style = win.getComputedStyle(text);
      if (style.display === "none" || style.visibility === "hidden") continue;
      const ctm = text.getScreenCTM();
      if (!ctm) continue;
      const scale = Math.hypot(ctm.a, ctm.b);
      const px = parseFloat(style.fontSize) * scale;
      const label = name + ': "' + text.textContent.trim().slice(0, 40) + '"';
      if (px < MIN_PX) {
        findings.push(["small-text", label, px.toFixed(1) + " px"]);
      }
      const box = text.getBoundingClientRect();
      const cx = box.left + box.width / 2;
      const cy = box.top + box.height / 2;
      // What is behind the text: the last shape drawn before it that
      // covers its centre, else the figure's page.
      let behind = [255, 255, 255];
      for (const shape of shapes) {
        if (!(shape.compareDocumentPosition(text) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
        const b = shape.getBoundingClientRect();
        const fill = rgb(win.getComputedStyle(shape).fill);
        const opacity = parseFloat(win.getComputedStyle(shape).fillOpacity || "1");
        if (fill && opacity > 0.5 && cx >= b.left && cx <= b.right && cy >= b.top && cy <= b.bottom) {
          behind = fill;
        }
      }
      // A halo (a wide stroke painted under the text) is what is behind it.
      const halo = rgb(style.stroke);
      if (halo && style.paintOrder.startsWith("stroke") && parseFloat(style.strokeWidth) >= 2) {
        behind = halo;
      }
      const fill = rgb(style.fill);
      if (fill) {
        const ratio = contrast(fill, behind);
        if (ratio < MIN_CONTRAST) {
          findings.push(["contrast", label, ratio.toFixed(2) + ":1 (" + style.fill + " on rgb(" + behind.join(", ") + "))"]);
        }
      }
      for (const other of placed) {
        const ox = Math.min(box.right, other.box.right) - Math.max(box.left, other.box.left);
        const oy = Math.min(box.bottom, other.box.bottom) - Math.max(box.top, other.box.top);
        if (ox > 1 && oy > 2) {
          findings.push(["overlap", label, 'drawn over "' + other.text + '"']);
        }
      }
      placed.push({ box, text: text.textContent.trim().slice(0, 40) });
    }
  }

  function figures(main) {
    for (const obj of main.querySelectorAll("object")) {
      const doc = obj.contentDocument;
      const svg = doc && doc.querySelector("svg");
      const name = (obj.getAttribute("data") || "object").split("/").pop();
      if (!svg) {
        findings.push(["unread", name, "the figure did not load"]);
        continue;
      }
      figureTexts(svg, name);
    }
    main.querySelectorAll("svg").forEach((svg, i) => figureTexts(svg, "inline svg " + (i + 1)));
  }

  function report() {
    const main = document.querySelector("main");
    if (!main) {
      findings.push(["unread", location.pathname, "no <main> element"]);
    } else {
      columnOverflow(main);
      tables(main);
      wrappedDiagrams(main);
      figures(main);
    }
    const out = window.parent.document.getElementById("layout-report");
    out.textContent = ["measured " + innerWidth]
      .concat(findings.map((f) => f.join("\t")))
      .join("\n");
  }

  // <object> figures count towards the load event; a little later, fonts
  // have settled too.
  window.addEventListener("load", () => setTimeout(report, 200));
})();
