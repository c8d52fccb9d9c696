// Progressive enhancement for the site on every page: the way back from a
// paper page to the list view the reader came from (the list records it as it is left); cells
// and their address on the gap map; the BibTeX copy buttons. The list page is list.js. Data are only ever written with
// textContent or attributes, never parsed as HTML.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  const LAST_LIST = "litcorpus-list";  // sessionStorage: the list view a paper page returns to

  // A paper page's way back: to the list view the reader came from, when there was one.
  function backLink() {
    const back = document.querySelector("a.back");
    if (!back) { return; }
    let last = null;
    try { last = window.sessionStorage.getItem(LAST_LIST); } catch (e) { /* storage off */ }
    if (last && /index\.html(\?|$)/.test(last)) {
      back.href = last;
      if (last.indexOf("?") >= 0) { back.textContent = "\u2190 Back to your list"; }
    }
  }

  // The gap map: a cell with entries links to the list filtered to it, and records itself in
  // the address first, so that Back returns to it; an empty cell links to its own panel,
  // which says why it is empty. The panel named by the address's hash is shown.
  function gapPage() {
    const cells = Array.from(document.querySelectorAll(".gapmap .cell"));
    const panels = Array.from(document.querySelectorAll(".cell-entries"));
    panels.forEach((p) => { p.hidden = true; });
    function show(id) {
      const target = id ? document.getElementById(id) : null;
      if (!target || !target.classList.contains("cell-entries")) { return; }
      const gap = target.getAttribute("data-gap");
      panels.forEach((p) => {
        if (p.getAttribute("data-gap") === gap) { p.hidden = p !== target; }
      });
      cells.forEach((c) => {
        const panel = document.getElementById(c.getAttribute("data-cell"));
        if (panel && panel.getAttribute("data-gap") === gap) {
          if (panel === target) { c.setAttribute("aria-current", "true"); }
          else { c.removeAttribute("aria-current"); }
        }
      });
    }
    cells.forEach((c) => {
      if ((c.getAttribute("href") || "").charAt(0) === "#") { return; }
      c.addEventListener("click", () => {
        const id = c.getAttribute("data-cell");
        try { window.history.replaceState(null, "", "#" + id); } catch (e) { /* file:// */ }
        show(id);
      });
    });
    window.addEventListener("hashchange", () => { show(window.location.hash.slice(1)); });
    if (window.location.hash) { show(window.location.hash.slice(1)); }
  }

  function copyButtons() {
    Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (btn) {
      btn.addEventListener("click", function () {
        var source = document.getElementById(btn.getAttribute("data-copy"));
        var text = source ? source.textContent : "";
        function done(msg) { btn.textContent = msg; }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { done("Copied"); },
            function () { select(source); done("Selected: press Ctrl+C"); });
        } else { select(source); done("Selected: press Ctrl+C"); }
      });
    });
  }

  function select(node) {
    if (!node) { return; }
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  // The list view a paper page leads back to, stored as the reader leaves the list.
  function rememberList() {
    window.addEventListener("pagehide", () => {
      try { window.sessionStorage.setItem(LAST_LIST, window.location.href); } catch (e) { /* off */ }
    });
  }

  backLink();
  if (document.getElementById("facets")) { rememberList(); }
  if (document.querySelector(".gapmap")) { gapPage(); }
  copyButtons();
}());
