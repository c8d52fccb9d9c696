// Progressive enhancement for the awesome-llm-mas-rl site: facets, search, sort, pages and URL
// state on the list page; cells and their address on the gap map; the BibTeX copy button. Data
// are only ever written with textContent or attributes, never parsed as HTML.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // The list page. index.html holds the first page of the default view (newest first, no
  // filter); assets/entries.js holds one record per entry (see litcorpus/listing.py) and is
  // loaded on the first sign of use, or at once when the address asks for another view. Filters
  // and counts then run over every entry, and only the current page is in the DOM.
  const KEY = 0, TITLE = 1, HREF = 2, YEAR = 3, BYLINE = 4, SUMMARY = 5, LINKS = 6, VALUES = 7;
  const ADDED = 8, NEW = 9;
  const SORTS = ["year", "year-asc", "title"];
  const PAGER_SPAN = 2;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach((name) => { node.setAttribute(name, attrs[name]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function fmt(n) { return n.toLocaleString("en-US"); }

  function plural(n, one, many) { return fmt(n) + " " + (n === 1 ? one : many); }

  // The reader's words as the search index holds its text (litcorpus/publish/search.py):
  // lower case, accents dropped, split wherever a character is not a letter or a digit.
  function fold(text) { return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase(); }

  function queryTerms(q) { return fold(q).split(/[^\p{L}\p{N}]+/u).filter((t) => t); }

  // Page numbers the pager names: the first, the last and PAGER_SPAN either side of the
  // current one; null stands for two or more pages left out (listing.page_window).
  function pageWindow(current, pages) {
    const keep = [];
    for (let n = 1; n <= pages; n += 1) {
      if (n === 1 || n === pages || Math.abs(n - current) <= PAGER_SPAN) { keep.push(n); }
    }
    const out = [];
    keep.forEach((n) => {
      const last = out.length ? out[out.length - 1] : null;
      if (last !== null && n - last === 2) { out.push(n - 1); }
      else if (last !== null && n - last > 2) { out.push(null); }
      out.push(n);
    });
    return out;
  }

  function statusText(view) {
    if (view.pages <= 1) {
      return view.matching === view.total ? "Showing all " + fmt(view.total) + " entries."
        : "Showing " + fmt(view.matching) + " of " + fmt(view.total) + " entries.";
    }
    const of = view.matching === view.total ? "all " + fmt(view.total) + " entries"
      : fmt(view.matching) + " matching entries";
    return "Showing " + fmt(view.first) + "\u2013" + fmt(view.first + view.count - 1) + " of " +
      of + ".";
  }

  function listPage(form) {
    const results = document.getElementById("results");
    const pager = document.getElementById("pager");
    const q = document.getElementById("q");
    const sort = document.getElementById("sort");
    const status = document.getElementById("status");
    const none = document.getElementById("no-results");
    const why = document.getElementById("no-results-why");
    const toggle = document.getElementById("filters-toggle");
    const groups = document.getElementById("facet-groups");
    const axes = Array.from(form.querySelectorAll("fieldset.facet"),
      (f) => f.getAttribute("data-axis"));
    const orders = {};
    let data = null;
    let entriesLoading = false;
    let queued = null;  // an update waiting for entries.js: {push}
    let index = null;  // each entry's folded text, by position in the list's data
    let indexLoading = false;
    let hits = null;  // {terms, on}: which entries the last search matched
    let unknown = {};  // values the address asks for that the facets do not have
    let typingTimer = null;
    let page = 1;
    let focusResults = false;
    let since = "";  // ?since=VERSION: only the entries added after that release

    function loadScript(src, done, failed) {
      const s = document.createElement("script");
      s.src = src;
      s.onload = done;
      s.onerror = failed;
      document.head.appendChild(s);
    }

    function loadIndex() {
      if (index || indexLoading) { return; }
      indexLoading = true;
      const failed = () => {
        indexLoading = false;
        status.textContent = "The search index could not be loaded.";
      };
      loadScript("assets/search-index.js", () => {
        index = window.LITCORPUS_SEARCH.docs;
        if (data) { update(false, true); }
      }, failed);
    }

    // Which entries hold every term as the start of a word: the text leads with a space and
    // parts its words with one, so " " + term is a word that starts with term.
    function searchHits(terms) {
      const key = terms.join(" ");
      if (!hits || hits.key !== key) {
        const on = new Uint8Array(data.entries.length);
        const needles = terms.map((t) => " " + t);
        index.forEach((doc) => {
          const i = data.posOf[doc[0]];
          if (i !== undefined && needles.every((n) => doc[1].includes(n))) { on[i] = 1; }
        });
        hits = { key: key, on: on };
      }
      return hits.on;
    }

    function loadEntries() {
      if (data || entriesLoading) { return; }
      entriesLoading = true;
      loadScript("assets/entries.js", () => {
        prepare(window.LITCORPUS_ENTRIES);
        if (queued) {
          const push = queued.push;
          queued = null;
          update(push, true);
        }
      }, () => {
        entriesLoading = false;
        status.textContent = "The list of entries could not be loaded.";
      });
    }

    // Lookups from the record format: axis and value positions, and the facet count spans.
    function prepare(d) {
      d.axisAt = {};
      d.axes.forEach((axis, a) => {
        d.axisAt[axis.id] = a;
        axis.valueAt = {};
        axis.values.forEach((v, j) => { axis.valueAt[v[0]] = j; });
      });
      d.spans = Array.from(form.querySelectorAll("fieldset.facet input"), (input) => {
        const a = d.axisAt[input.name];
        const v = a === undefined ? undefined : d.axes[a].valueAt[input.value];
        return [input.parentNode.querySelector(".count"), a, v, input];
      }).filter((s) => s[0]);
      d.posOf = {};
      d.entries.forEach((e, i) => { d.posOf[e[KEY]] = i; });
      data = d;
    }

    function readState() {
      const params = new URLSearchParams(window.location.search);
      const state = {
        q: params.get("q") || "",
        sort: params.get("sort") || "year",
        page: Math.max(1, parseInt(params.get("page"), 10) || 1),
        since: params.get("since") || "",
        facets: {}
      };
      axes.forEach((a) => { state.facets[a] = params.getAll(a); });
      return state;
    }

    function formState() {
      const state = { q: q.value.trim(), sort: sort.value, page: page, since: since, facets: {} };
      axes.forEach((a) => {
        state.facets[a] = Array.from(form.querySelectorAll('input[name="' + a + '"]'))
          .filter((i) => i.checked).map((i) => i.value).concat(unknown[a] || []);
      });
      return state;
    }

    function isDefault(state) {
      return !state.q && state.sort === "year" && state.page === 1 && !state.since &&
        axes.every((a) => !state.facets[a].length);
    }

    function applyToForm(state) {
      q.value = state.q;
      since = state.since || "";
      sort.value = SORTS.indexOf(state.sort) >= 0 ? state.sort : "year";
      unknown = {};
      axes.forEach((a) => {
        const inputs = Array.from(form.querySelectorAll('input[name="' + a + '"]'));
        inputs.forEach((i) => { i.checked = state.facets[a].indexOf(i.value) >= 0; });
        const known = inputs.map((i) => i.value);
        const rest = state.facets[a].filter((v) => known.indexOf(v) < 0);
        if (rest.length) { unknown[a] = rest; }
      });
      showActive();
    }

    // The filter button (on narrow screens) says how many filters are ticked.
    function showActive() {
      const n = form.querySelectorAll(".facet input:checked").length;
      toggle.textContent = n ? "Filters (" + n + " active)" : "Filters";
    }

    // The address of this page without a query ("./" when it is a folder's index).
    function here() { return window.location.pathname.split("/").pop() || "./"; }

    function toQuery(state) {
      const params = new URLSearchParams();
      axes.forEach((a) => { state.facets[a].forEach((v) => { params.append(a, v); }); });
      if (state.q) { params.set("q", state.q); }
      if (state.sort !== "year") { params.set("sort", state.sort); }
      if (state.since) { params.set("since", state.since); }
      if (state.page > 1) { params.set("page", String(state.page)); }
      const s = params.toString();
      return s ? "?" + s : here();
    }

    // Which entries match, and per axis how many entries each value would match if that
    // axis's own selection were cleared (so counts show what ticking another value adds).
    function match(state, terms) {
      const entries = data.entries;
      const selected = data.axes.map((axis) => {
        const wanted = state.facets[axis.id] || [];
        if (!wanted.length) { return null; }
        const on = new Uint8Array(axis.values.length);
        wanted.forEach((v) => { if (axis.valueAt[v] !== undefined) { on[axis.valueAt[v]] = 1; } });
        return on;
      });
      const active = [];
      selected.forEach((on, a) => { if (on) { active.push(a); } });
      const counts = data.axes.map((axis) => new Int32Array(axis.values.length));
      const matched = new Uint8Array(entries.length);
      const found = terms.length && index ? searchHits(terms) : null;
      const release = state.since ? data.releases.find((r) => r[0] === state.since) : null;
      for (let i = 0; i < entries.length; i += 1) {
        const e = entries[i];
        if (state.since && (!release || !(e[ADDED] > release[1]))) { continue; }
        if (found && !found[i]) { continue; }
        const values = e[VALUES];
        let misses = 0;
        let missed = -1;
        for (let k = 0; k < active.length && misses < 2; k += 1) {
          const a = active[k];
          const on = selected[a];
          if (!values[a].some((v) => on[v] === 1)) { misses += 1; missed = a; }
        }
        if (misses === 0) {
          matched[i] = 1;
          values.forEach((vs, a) => { vs.forEach((v) => { counts[a][v] += 1; }); });
        } else if (misses === 1) {
          values[missed].forEach((v) => { counts[missed][v] += 1; });
        }
      }
      return { matched: matched, counts: counts };
    }

    // Why nothing matches: each filter that alone empties the list, and how many entries its
    // removal would show.
    function explainEmpty(state, terms) {
      const parts = [];
      Object.keys(unknown).forEach((a) => {
        const label = data.axes[data.axisAt[a]].label;
        unknown[a].forEach((v) => { parts.push("There is no " + label + " \u201c" + v + "\u201d."); });
      });
      const without = (change) => {
        const trial = Object.assign({}, state, change);
        return match(trial, change.q === "" ? [] : terms).matched.reduce((n, m) => n + m, 0);
      };
      const names = [];
      if (terms.length && index) { names.push(["the search \u201c" + state.q + "\u201d", { q: "" }]); }
      if (state.since) { names.push(["entries added since " + state.since, { since: "" }]); }
      data.axes.forEach((axis) => {
        const wanted = state.facets[axis.id] || [];
        if (!wanted.length || unknown[axis.id]) { return; }
        const labels = wanted.map((v) => {
          const j = axis.valueAt[v];
          return j === undefined ? v : axis.values[j][1];
        });
        const facets = Object.assign({}, state.facets);
        facets[axis.id] = [];
        names.push([axis.label + ": " + labels.join(" or "), { facets: facets }]);
      });
      const helps = [];
      names.forEach((pair) => {
        const n = without(pair[1]);
        if (n) { helps.push("without " + pair[0] + ", " + plural(n, "entry matches", "entries match")); }
      });
      if (helps.length) {
        parts.push("No entry matches all these filters: " + helps.join("; ") + ".");
      } else if (!parts.length) {
        parts.push("No entry matches these filters, nor any of them with one filter removed.");
      }
      return parts.join(" ");
    }

    // Entry positions in the order of a sort; entries.js is already newest first.
    function order(name) {
      if (!orders[name]) {
        const entries = data.entries;
        const ids = entries.map((_, i) => i);
        if (name === "year-asc") {
          ids.sort((a, b) => (Number(entries[a][YEAR]) || 0) - (Number(entries[b][YEAR]) || 0) ||
            a - b);
        } else if (name === "title") {
          const collator = new Intl.Collator();
          const titles = entries.map((e) => String(e[TITLE]).toLowerCase());
          ids.sort((a, b) => collator.compare(titles[a], titles[b]) ||
            (entries[a][KEY] < entries[b][KEY] ? -1 : 1));
        }
        orders[name] = ids;
      }
      return orders[name];
    }

    function entryItem(e) {
      const li = el("li", { "class": "entry", "data-key": e[KEY] });
      const h3 = li.appendChild(el("h3"));
      if (e[HREF]) { h3.appendChild(el("a", { href: e[HREF] }, e[TITLE])); }
      else { h3.textContent = e[TITLE]; }
      if (e[NEW]) {
        h3.appendChild(document.createTextNode(" "));
        h3.appendChild(el("span", {
          "class": "new", title: "Added on " + e[ADDED] + ", after the latest release"
        }, "new"));
      }
      const meta = li.appendChild(el("p", { "class": "meta" }, e[BYLINE] + " \u00b7 "));
      meta.appendChild(el("a", { href: "papers/" + e[KEY] + ".html" }, "details"));
      e[LINKS].forEach((link) => {
        meta.appendChild(document.createTextNode(" \u00b7 "));
        meta.appendChild(el("a", { href: link[1] }, link[0]));
      });
      li.appendChild(el("p", { "class": "summary" }, e[SUMMARY]));
      const chips = li.appendChild(el("p", { "class": "chips" }));
      data.axes.forEach((axis, a) => {
        if (axis.derived) { return; }  // year and venue: in the byline
        e[VALUES][a].forEach((j) => {
          const v = axis.values[j];
          const attrs = { "class": "chip chip-" + axis.id, href: "taxonomy.html#" + axis.id + "-" + v[0] };
          if (v[4]) { attrs.title = v[4]; }
          const chip = el("a", attrs, v[2]);
          chips.appendChild(chip);
          chips.appendChild(document.createTextNode(" "));
        });
      });
      return li;
    }

    // One page of SHOWN (matching positions, in order), in sections by the group axis.
    function renderPage(shown) {
      const size = data.pageSize;
      const members = shown.slice((page - 1) * size, page * size);
      const g = data.group;
      const groupOf = (i) => {
        const vs = g >= 0 ? data.entries[i][VALUES][g] : [];
        return vs.length ? vs[0] : (g >= 0 ? data.axes[g].values.length : 0);
      };
      const sections = new Map();
      members.forEach((i) => {
        const s = groupOf(i);
        if (!sections.has(s)) { sections.set(s, []); }
        sections.get(s).push(i);
      });
      const totals = new Map();
      shown.forEach((i) => {
        const s = groupOf(i);
        if (sections.has(s)) { totals.set(s, (totals.get(s) || 0) + 1); }
      });
      const frag = document.createDocumentFragment();
      Array.from(sections.keys()).sort((a, b) => a - b).forEach((s, k) => {
        const label = g < 0 ? "Entries"
          : s < data.axes[g].values.length ? data.axes[g].values[s][1] : "Other";
        const list = sections.get(s);
        const section = frag.appendChild(el("section", {
          "class": "category", id: "section-" + (k + 1)
        }));
        const h2 = section.appendChild(el("h2", null, label + " "));
        const n = list.length;
        const total = totals.get(s);
        h2.appendChild(el("span", { "class": "count" },
          "(" + fmt(n) + (n !== total ? " of " + fmt(total) : "") + ")"));
        const ol = section.appendChild(el("ol", { "class": "entries" }));
        list.forEach((i) => { ol.appendChild(entryItem(data.entries[i])); });
      });
      results.querySelectorAll("section.category").forEach((s) => { s.remove(); });
      results.insertBefore(frag, none);
      return members.length;
    }

    function renderPager(state, pages) {
      pager.textContent = "";
      pager.hidden = pages <= 1;
      if (pages <= 1) { return; }
      const ul = pager.appendChild(el("ul"));
      function item(label, n, rel) {
        const li = ul.appendChild(el("li"));
        if (!n) {
          li.appendChild(el("span", { "class": rel ? "off" : "gap" }, label));
          return;
        }
        const link = el("a", {
          href: toQuery(Object.assign({}, state, { page: n })), "data-page": String(n)
        }, label);
        if (rel) { link.setAttribute("rel", rel); }
        else { link.setAttribute("aria-label", "Page " + n); }
        if (!rel && n === page) { link.setAttribute("aria-current", "page"); }
        li.appendChild(link);
      }
      item("Previous", page > 1 ? page - 1 : 0, "prev");
      pageWindow(page, pages).forEach((n) => { item(n === null ? "\u2026" : String(n), n, ""); });
      item("Next", page < pages ? page + 1 : 0, "next");
    }

    // Re-render from the form and PAGE. PUSH: true adds a history entry, false replaces the
    // current one, null leaves the address alone. KEEP_PAGE: else back to page 1.
    function update(push, keepPage) {
      if (!keepPage) { page = 1; }
      if (!data) {
        const rank = (p) => (p === true ? 2 : p === false ? 1 : 0);
        queued = { push: queued && rank(queued.push) > rank(push) ? queued.push : push };
        status.textContent = "Loading entries...";
        loadEntries();
        return;
      }
      const state = formState();
      const terms = queryTerms(state.q);
      if (terms.length && !index) { loadIndex(); }
      const result = match(state, terms);
      data.spans.forEach((s) => {  // only what changed is written: fewer style updates
        const n = String(s[1] === undefined || s[2] === undefined ? 0 : result.counts[s[1]][s[2]]);
        if (s[0].textContent !== n) { s[0].textContent = n; }
        const off = n === "0" && !s[3].checked;  // ticking it could only empty the list
        if (s[3].disabled !== off) { s[3].disabled = off; }
      });
      showActive();
      const shown = order(SORTS.indexOf(state.sort) >= 0 ? state.sort : "year")
        .filter((i) => result.matched[i] === 1);
      const pages = Math.max(1, Math.ceil(shown.length / data.pageSize));
      const corrected = page > pages;  // ?page=N past the end: the last page, and say so
      page = Math.min(page, pages);
      state.page = page;
      const count = renderPage(shown);
      renderPager(state, pages);
      none.hidden = shown.length !== 0;
      if (!shown.length) { why.textContent = explainEmpty(state, terms); }
      const pending = terms.length && !index ? " Loading search index..." : "";
      let sinceText = "";
      if (state.since) {
        sinceText = data.releases.some((r) => r[0] === state.since)
          ? "Added since release " + state.since + ". "
          : "There is no release " + state.since + ": no entry is shown. ";
      }
      status.textContent = sinceText + statusText({
        first: (page - 1) * data.pageSize + 1, count: count, matching: shown.length,
        total: data.entries.length, pages: pages
      }) + pending;
      if (focusResults) {
        focusResults = false;
        results.focus({ preventScroll: true });
        if (results.getBoundingClientRect().top < 0) { results.scrollIntoView(); }
      }
      if (push !== null || corrected) {
        const url = toQuery(state);
        const current = window.location.search || here();
        if (url !== current) {
          try {
            if (push === true) { window.history.pushState(null, "", url); }
            else { window.history.replaceState(null, "", url); }
          } catch (e) { /* some file:// contexts refuse; the view still updates */ }
        }
      }
    }

    form.addEventListener("submit", (ev) => { ev.preventDefault(); update(true); });
    form.addEventListener("change", (ev) => { if (ev.target !== q) { update(true); } });
    q.addEventListener("input", () => {
      window.clearTimeout(typingTimer);
      page = 1;
      loadIndex();
      typingTimer = window.setTimeout(() => { update(false); }, 120);
    });
    form.addEventListener("reset", (ev) => {
      ev.preventDefault();
      applyToForm({ q: "", sort: "year", since: "", facets: axes.reduce((o, a) => { o[a] = []; return o; }, {}) });
      update(true);
    });
    document.getElementById("clear-empty").addEventListener("click", () => { form.reset(); });
    toggle.hidden = false;
    toggle.addEventListener("click", () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      toggle.setAttribute("aria-expanded", String(open));
      groups.classList.toggle("open", open);
    });
    pager.addEventListener("click", (ev) => {
      const link = ev.target.closest("a[data-page]");
      if (!link || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) {
        return;
      }
      ev.preventDefault();
      page = Number(link.getAttribute("data-page")) || 1;
      focusResults = true;
      update(true, true);
    });
    ["focusin", "pointerover", "touchstart"].forEach((type) => {
      form.addEventListener(type, loadEntries, { once: true, passive: true });
      pager.addEventListener(type, loadEntries, { once: true, passive: true });
    });
    window.addEventListener("popstate", () => {
      const state = readState();
      if (!data && isDefault(state)) { return; }  // still the page as served
      applyToForm(state);
      page = state.page;
      update(null, true);
    });
    const initial = readState();
    applyToForm(initial);
    page = initial.page;
    if (initial.q) { loadIndex(); }
    if (isDefault(initial)) { status.textContent = status.getAttribute("data-default"); }
    else { update(null, true); }
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

  var form = document.getElementById("facets");
  if (form) { listPage(form); }
  if (document.querySelector(".gapmap")) { gapPage(); }
  copyButtons();
}());
