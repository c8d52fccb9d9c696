// Progressive enhancement for the awesome-llm-mas-rl site: facets, search, sort and URL state on
// the list page; cell selection on the gap map; the BibTeX copy button. Data are only ever
// written with textContent or attributes, never parsed as HTML.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function attrName(axis) { return "data-" + axis.replace(/_/g, "-"); }

  function listPage(form) {
    var entries = Array.prototype.slice.call(document.querySelectorAll(".entry"));
    var axes = Array.prototype.map.call(form.querySelectorAll("fieldset.facet"),
      function (f) { return f.getAttribute("data-axis"); });
    var values = entries.map(function (el) {
      var v = {};
      axes.forEach(function (a) {
        var raw = el.getAttribute(attrName(a));
        v[a] = raw ? raw.split(" ") : [];
      });
      return v;
    });
    var q = document.getElementById("q");
    var sort = document.getElementById("sort");
    var status = document.getElementById("status");
    var none = document.getElementById("no-results");
    var index = null;
    var loading = false;
    var typingTimer = null;

    function loadIndex() {
      if (index || loading) { return; }
      loading = true;
      var s = document.createElement("script");
      s.src = "assets/search-index.js";
      s.onload = function () { index = window.LITCORPUS_SEARCH || {}; update(false); };
      s.onerror = function () { loading = false; };
      document.head.appendChild(s);
    }

    function readState() {
      var params = new URLSearchParams(window.location.search);
      var state = { q: params.get("q") || "", sort: params.get("sort") || "year", facets: {} };
      axes.forEach(function (a) { state.facets[a] = params.getAll(a); });
      return state;
    }

    function formState() {
      var state = { q: q.value.trim(), sort: sort.value, facets: {} };
      axes.forEach(function (a) {
        state.facets[a] = Array.prototype.filter.call(
          form.querySelectorAll('input[name="' + a + '"]'), function (i) { return i.checked; }
        ).map(function (i) { return i.value; });
      });
      return state;
    }

    function applyToForm(state) {
      q.value = state.q;
      sort.value = ["year", "year-asc", "title"].indexOf(state.sort) >= 0 ? state.sort : "year";
      axes.forEach(function (a) {
        Array.prototype.forEach.call(form.querySelectorAll('input[name="' + a + '"]'),
          function (i) { i.checked = state.facets[a].indexOf(i.value) >= 0; });
      });
    }

    function toQuery(state) {
      var params = new URLSearchParams();
      axes.forEach(function (a) { state.facets[a].forEach(function (v) { params.append(a, v); }); });
      if (state.q) { params.set("q", state.q); }
      if (state.sort !== "year") { params.set("sort", state.sort); }
      var s = params.toString();
      return s ? "?" + s : window.location.pathname.split("/").pop();
    }

    function matchesQuery(i, terms) {
      if (!terms.length) { return true; }
      if (!index) { return true; }
      var text = index[entries[i].getAttribute("data-key")] || "";
      return terms.every(function (t) { return text.indexOf(t) >= 0; });
    }

    function matchesFacets(i, state, except) {
      return axes.every(function (a) {
        if (a === except || !state.facets[a].length) { return true; }
        return state.facets[a].some(function (v) { return values[i][a].indexOf(v) >= 0; });
      });
    }

    function reorder(state) {
      var cmp = {
        "year": function (a, b) { return b.getAttribute("data-year") - a.getAttribute("data-year"); },
        "year-asc": function (a, b) { return a.getAttribute("data-year") - b.getAttribute("data-year"); },
        "title": function (a, b) {
          return a.getAttribute("data-title").localeCompare(b.getAttribute("data-title"));
        }
      }[state.sort] || function () { return 0; };
      Array.prototype.forEach.call(document.querySelectorAll("ol.entries"), function (ol) {
        var items = Array.prototype.slice.call(ol.children);
        items.sort(function (a, b) {
          return cmp(a, b) || a.getAttribute("data-key").localeCompare(b.getAttribute("data-key"));
        });
        items.forEach(function (li) { ol.appendChild(li); });
      });
    }

    function update(push) {
      var state = formState();
      var terms = state.q.toLowerCase().split(/\s+/).filter(Boolean);
      if (terms.length && !index) { loadIndex(); }
      var shown = 0;
      var inQuery = entries.map(function (_, i) { return matchesQuery(i, terms); });
      entries.forEach(function (el, i) {
        var ok = inQuery[i] && matchesFacets(i, state, null);
        el.hidden = !ok;
        if (ok) { shown += 1; }
      });
      axes.forEach(function (a) {
        var counts = {};
        entries.forEach(function (_, i) {
          if (inQuery[i] && matchesFacets(i, state, a)) {
            values[i][a].forEach(function (v) { counts[v] = (counts[v] || 0) + 1; });
          }
        });
        Array.prototype.forEach.call(form.querySelectorAll('input[name="' + a + '"]'), function (input) {
          var span = input.parentNode.querySelector(".count");
          if (span) { span.textContent = String(counts[input.value] || 0); }
        });
      });
      Array.prototype.forEach.call(document.querySelectorAll("section.category"), function (sec) {
        var visible = sec.querySelectorAll(".entry:not([hidden])").length;
        sec.hidden = visible === 0;
        var c = sec.querySelector("h2 .count");
        if (c) { c.textContent = "(" + visible + ")"; }
      });
      reorder(state);
      none.hidden = shown !== 0;
      var pending = terms.length && !index ? " Loading search index..." : "";
      status.textContent = (shown === entries.length ? "Showing all " + shown + " entries."
        : "Showing " + shown + " of " + entries.length + " entries.") + pending;
      if (push !== null) {
        var url = toQuery(state);
        var current = window.location.search || window.location.pathname.split("/").pop();
        if (url !== current) {
          try {
            if (push) { window.history.pushState(null, "", url); }
            else { window.history.replaceState(null, "", url); }
          } catch (e) { /* some file:// contexts refuse; the view still filters */ }
        }
      }
    }

    form.addEventListener("submit", function (ev) { ev.preventDefault(); update(true); });
    form.addEventListener("change", function (ev) {
      if (ev.target !== q) { update(true); }
    });
    q.addEventListener("input", function () {
      window.clearTimeout(typingTimer);
      loadIndex();
      typingTimer = window.setTimeout(function () { update(false); }, 120);
    });
    form.addEventListener("reset", function (ev) {
      ev.preventDefault();
      applyToForm({ q: "", sort: "year", facets: axes.reduce(function (o, a) { o[a] = []; return o; }, {}) });
      update(true);
    });
    window.addEventListener("popstate", function () { applyToForm(readState()); update(null); });
    var initial = readState();
    applyToForm(initial);
    if (initial.q) { loadIndex(); }
    update(null);
  }

  function gapPage() {
    var cells = Array.prototype.slice.call(document.querySelectorAll(".gapmap .cell"));
    var panels = Array.prototype.slice.call(document.querySelectorAll(".cell-entries"));
    panels.forEach(function (p) { p.hidden = true; });
    function show(id) {
      var target = document.getElementById(id);
      if (!target) { return; }
      var gap = target.getAttribute("data-gap");
      panels.forEach(function (p) { if (p.getAttribute("data-gap") === gap) { p.hidden = p !== target; } });
      cells.forEach(function (c) {
        var panel = document.getElementById(c.getAttribute("data-cell"));
        if (panel && panel.getAttribute("data-gap") === gap) {
          c.setAttribute("aria-expanded", String(panel === target));
        }
      });
    }
    cells.forEach(function (c) {
      c.setAttribute("aria-controls", c.getAttribute("data-cell"));
      c.setAttribute("aria-expanded", "false");
      c.setAttribute("role", "button");
      c.addEventListener("click", function (ev) { ev.preventDefault(); show(c.getAttribute("data-cell")); });
      c.addEventListener("keydown", function (ev) {
        if (ev.key === " ") { ev.preventDefault(); show(c.getAttribute("data-cell")); }
      });
    });
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

  var form = document.getElementById("facets");
  if (form) { listPage(form); }
  if (document.querySelector(".gapmap")) { gapPage(); }
  copyButtons();
}());
