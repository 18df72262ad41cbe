// The book's side of its embedded timeline pages (`<iframe
// class="timeline-page">`, made by the `--timeline run.html` flag).
//
// A page in a frame cannot see the book around it, and a book opened from
// a file is another origin to its frames, so the two talk by `postMessage`:
// the page says how tall it is (the frame takes that height, so the panel
// under the lanes is never cut off) and that it is ready; the book answers
// with its theme, and again whenever the reader picks another one (mdBook
// puts the theme's name in the class of <html>).
(function () {
  'use strict';
  var DARK = /\b(coal|navy|ayu)\b/;

  function frames() {
    return Array.prototype.slice.call(document.querySelectorAll('iframe.timeline-page'));
  }
  function tell(frame) {
    if (frame.contentWindow) {
      frame.contentWindow.postMessage(
        { timelinePage: 'theme', dark: DARK.test(document.documentElement.className) }, '*');
    }
  }

  window.addEventListener('message', function (e) {
    var said = e.data;
    if (!said || typeof said.timelinePage !== 'string') { return; }
    frames().forEach(function (frame) {
      if (frame.contentWindow !== e.source) { return; }
      if (said.timelinePage === 'height' && typeof said.height === 'number' &&
          said.height > 0 && said.height < 20000) {
        frame.style.height = Math.ceil(said.height) + 'px';
      }
      if (said.timelinePage === 'ready') { tell(frame); }
    });
  });

  new MutationObserver(function () { frames().forEach(tell); })
    .observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });

  // A frame may have loaded, and said it was ready, before this script
  // ran: each is told now, and again when it loads. The page answers the
  // theme with its height.
  frames().forEach(function (frame) {
    tell(frame);
    frame.addEventListener('load', function () { tell(frame); });
  });
}());
