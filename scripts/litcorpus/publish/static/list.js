// Progressive enhancement of the list page: facets, ranked search, sort, pages, active filters
// and URL state (app.js runs first and marks the page as scripted). Data are only ever written
// with textContent or attributes, never parsed as HTML.
(function () {
  "use strict";

  // The list page. index.html holds the first page of the default view (newest first, no
  // filter); assets/entries.js holds one record per entry (see litcorpus/publish/listing.py)
  // and is loaded on the first sign of use, or at once when the address asks for another view.
  // MiniSearch and its index (litcorpus/publish/search.py, built with the site) are loaded once
  // the page is idle after load, and built in slices, so that a first search finds them ready;
  // a reader who asked to save data (Save-Data) gets them when first touching the search box.
  // Filters and counts run over every entry, and only the current page is in the DOM.
  const KEY = 0, TITLE = 1, YEAR = 3, BYLINE = 4, SUMMARY = 5, LINKS = 6, VALUES = 7;
  const ADDED = 8, NEW = 9, HELD = 10, NAME = 11;
  const SORTS = ["relevance", "year", "added", "year-asc", "title"];
  const PAGER_SPAN = 2;
  const TYPING_MS = 120;
  const LAST_LIST = "litcorpus-list";  // sessionStorage: the list view a paper page returns to
  const LAST_SEEN = "litcorpus-seen";  // localStorage: the latest day added at the last visit
  const S = window.LitcorpusSearch;  // listsearch.js
  const FIELDS = S.FIELDS, BOOST = S.BOOST, fold = S.fold, queryTerms = S.queryTerms;
  const fuzzyFor = S.fuzzyFor;
  const FIELD_WORDS = { authors: "the authors", first: "the authors", venue: "the venue",
    tags: "the tags", notes: "the curator's notes", name: "the name",
    place: "the affiliation" };

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach((name) => { node.setAttribute(name, attrs[name]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function fmt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }  // 10,000

  function plural(n, one, many) { return fmt(n) + " " + (n === 1 ? one : many); }

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

  // TEXT into NODE, each word the search matched (its folded form in TERMS) in a mark: the
  // matching parts of a hyphenated word, else the word whole when it matched whole.
  function marked(node, text, terms) {
    if (!terms || !terms.size) { node.textContent = text; return node; }
    let last = 0;
    const mark = (start, end) => {
      if (start > last) { node.appendChild(document.createTextNode(text.slice(last, start))); }
      node.appendChild(el("mark", null, text.slice(start, end)));
      last = end;
    };
    const words = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;
    let m;
    while ((m = words.exec(text)) !== null) {
      const parts = [];
      const part = /[\p{L}\p{N}]+/gu;
      let p;
      while ((p = part.exec(m[0])) !== null) {
        if (terms.has(fold(p[0]))) { parts.push([m.index + p.index, p[0].length]); }
      }
      if (parts.length) { parts.forEach((x) => { mark(x[0], x[0] + x[1]); }); }
      else if (terms.has(fold(m[0]).replace(/-/g, ""))) { mark(m.index, m.index + m[0].length); }
    }
    if (last < text.length) { node.appendChild(document.createTextNode(text.slice(last))); }
    return node;
  }

  function listPage(form) {
    const results = document.getElementById("results");
    const pager = document.getElementById("pager");
    const searchForm = document.getElementById("search-form");
    const q = document.getElementById("q");
    const sort = document.getElementById("sort");
    const groupBox = document.getElementById("group");
    const status = document.getElementById("status");
    const none = document.getElementById("no-results");
    const why = document.getElementById("no-results-why");
    const toggle = document.getElementById("filters-toggle");
    const panel = document.getElementById("facet-panel");
    const closer = document.getElementById("filters-close");
    const showResults = document.getElementById("show-results");
    const active = document.getElementById("active-filters");
    const hiddenNote = document.getElementById("facets-hidden");
    const axes = Array.from(form.querySelectorAll("fieldset.facet"),
      (f) => f.getAttribute("data-axis"));
    const orders = {};
    let data = null;
    let entriesLoading = false;
    let queued = null;  // an update waiting for entries.js: {push}
    let engine = null;  // MiniSearch over the search index, once loaded
    let searchLoading = false;
    let hits = null;  // {key, on, score, terms, fields}: what the last search matched
    let unknown = {};  // values the address asks for that the facets do not have
    let typingTimer = null;  // set while typing waits: one pass per TYPING_MS at most
    let typedSince = false;  // typed during that wait: one more pass when it ends
    let page = 1;
    let sortChoice = "";  // the reader's sort; "" is best match while searching, else newest
    let focusResults = false;
    let since = "";  // ?since=VERSION: only the entries added after that release

    function loadScript(src, done, failed) {
      const s = document.createElement("script");
      s.src = src;
      s.onload = done;
      s.onerror = failed;
      document.head.appendChild(s);
    }

    function loadSearch() {
      if (engine || searchLoading) { return; }
      searchLoading = true;
      const failed = () => {
        searchLoading = false;
        status.textContent = "The search index could not be loaded.";
      };
      let waiting = 2;
      const options = { fields: FIELDS, searchOptions: {
        boost: BOOST, prefix: true, fuzzy: fuzzyFor, tokenize: queryTerms, processTerm: (t) => t
      } };
      const loaded = () => {
        waiting -= 1;
        if (waiting) { return; }
        const ready = (ms) => {
          engine = ms;
          window.LITCORPUS_SEARCH = null;  // MiniSearch holds it now
          if (data && queryTerms(q.value).length) {
            typedSince = false;  // this pass shows the box's words: none more is owed
            update(false, true);
          }
        };
        // A reader who is waiting gets the index at once; one who only touched the box, in
        // slices that leave the page free to answer.
        if (queryTerms(q.value).length) {
          ready(window.MiniSearch.loadJS(window.LITCORPUS_SEARCH, options));
        } else { window.MiniSearch.loadJSAsync(window.LITCORPUS_SEARCH, options).then(ready, failed); }
      };
      loadScript("assets/minisearch.js", () => { S.buildTagIndex(data); loaded(); }, failed);
      loadScript("assets/search-index.js", loaded, failed);
    }

    function loadEntries() {
      if (data || entriesLoading) { return; }
      entriesLoading = true;
      loadScript("assets/entries.js", () => {
        prepare(window.LITCORPUS_ENTRIES);
        S.buildTagIndex(data);
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
      d.onCard = new Set(d.headline);
      data = d;
    }

    function readState() {
      const params = new URLSearchParams(window.location.search);
      const state = {
        q: params.get("q") || "",
        sort: params.get("sort") || "",
        group: params.get("group") === "1",
        page: Math.max(1, parseInt(params.get("page"), 10) || 1),
        since: params.get("since") || "",
        facets: {}
      };
      axes.forEach((a) => { state.facets[a] = params.getAll(a); });
      return state;
    }

    function formState() {
      const state = { q: q.value.trim(), sort: sortChoice, group: !!(groupBox && groupBox.checked),
        page: page, since: since, facets: {} };
      axes.forEach((a) => {
        state.facets[a] = Array.from(form.querySelectorAll('input[name="' + a + '"]'))
          .filter((i) => i.checked).map((i) => i.value).concat(unknown[a] || []);
      });
      return state;
    }

    // The order a view is shown in: the reader's choice, else best match while searching.
    function sortOf(state) {
      const s = SORTS.indexOf(state.sort) >= 0 ? state.sort : "";
      if (s === "relevance" && !state.q) { return "year"; }
      return s || (state.q ? "relevance" : "year");
    }

    function isDefault(state) {
      return !state.q && !state.sort && !state.group && state.page === 1 && !state.since &&
        axes.every((a) => !state.facets[a].length);
    }

    function applyToForm(state) {
      q.value = state.q;
      since = state.since || "";
      sortChoice = SORTS.indexOf(state.sort) >= 0 ? state.sort : "";
      if (groupBox) { groupBox.checked = state.group; }
      unknown = {};
      axes.forEach((a) => {
        const inputs = Array.from(form.querySelectorAll('input[name="' + a + '"]'));
        inputs.forEach((i) => { i.checked = state.facets[a].indexOf(i.value) >= 0; });
        const known = inputs.map((i) => i.value);
        const rest = state.facets[a].filter((v) => known.indexOf(v) < 0);
        if (rest.length) { unknown[a] = rest; }
      });
      showSort(state);
      showActive();
    }

    function showSort(state) {
      const effective = sortOf(state);
      sort.querySelector('option[value="relevance"]').disabled = !state.q;
      if (sort.value !== effective) { sort.value = effective; }
    }

    // The filter button says how many filters are ticked; a folded group says how many of its
    // own are, and opens when it has any.
    function showActive() {
      const n = form.querySelectorAll(".facet input:checked").length;
      toggle.textContent = n ? "Filters (" + n + " active)" : "Filters";
      form.querySelectorAll("details.facet-fold").forEach((d) => {
        const on = d.querySelectorAll("input:checked").length;
        const badge = d.querySelector(".n-on");
        const text = on ? String(on) + " on" : "";
        if (badge.textContent !== text) { badge.textContent = text; }
        if (on && !d.open) { d.open = true; }
      });
    }

    // The address of this page without a query ("./" when it is a folder's index).
    function here() { return window.location.pathname.split("/").pop() || "./"; }

    function toQuery(state) {
      const params = new URLSearchParams();
      axes.forEach((a) => { state.facets[a].forEach((v) => { params.append(a, v); }); });
      if (state.q) { params.set("q", state.q); }
      if (state.sort) { params.set("sort", state.sort); }
      if (state.group) { params.set("group", "1"); }
      if (state.since) { params.set("since", state.since); }
      if (state.page > 1) { params.set("page", String(state.page)); }
      const s = params.toString();
      return s ? "?" + s : here();
    }

    // Which entries match, and per axis how many entries each value would match if that
    // axis's own selection were cleared (so counts show what ticking another value adds).
    function match(state, found) {
      const entries = data.entries;
      const selected = data.axes.map((axis) => {
        const wanted = state.facets[axis.id] || [];
        if (!wanted.length) { return null; }
        const on = new Uint8Array(axis.values.length);
        wanted.forEach((v) => { if (axis.valueAt[v] !== undefined) { on[axis.valueAt[v]] = 1; } });
        return on;
      });
      const chosen = [];
      selected.forEach((on, a) => { if (on) { chosen.push(a); } });
      const counts = data.axes.map((axis) => new Int32Array(axis.values.length));
      const matched = new Uint8Array(entries.length);
      // ?since=VERSION: the entries no release up to VERSION holds (one added on a release's
      // day is held by it only when the release lists it)
      const release = state.since ? data.releases.findIndex((r) => r[0] === state.since) : -1;
      for (let i = 0; i < entries.length; i += 1) {
        const e = entries[i];
        if (state.since && !(release >= 0 && e[HELD] > release)) { continue; }
        if (found && !found[i]) { continue; }
        const values = e[VALUES];
        let misses = 0;
        let missed = -1;
        for (let k = 0; k < chosen.length && misses < 2; k += 1) {
          const a = chosen[k];
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

    function total(matched) { return matched.reduce((n, m) => n + m, 0); }

    // "There is no Category “x”." for each value the address asks for that no facet has.
    function unknownValues() {
      const out = [];
      Object.keys(unknown).forEach((a) => {
        const label = data.axes[data.axisAt[a]].label;
        unknown[a].forEach((v) => { out.push("There is no " + label + " \u201c" + v + "\u201d."); });
      });
      return out;
    }

    // Why nothing matches: each filter that alone empties the list, and how many entries its
    // removal would show.
    function explainEmpty(state, found) {
      const parts = unknownValues();
      const names = [];
      if (found) { names.push(["the search \u201c" + state.q + "\u201d", { q: "" }]); }
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
        const change = pair[1];
        const n = total(match(Object.assign({}, state, change), change.q === "" ? null : found).matched);
        if (n) { helps.push("without " + pair[0] + ", " + plural(n, "entry matches", "entries match")); }
      });
      if (helps.length) {
        parts.push("No entry matches all these filters: " + helps.join("; ") + ".");
      } else if (!parts.length) {
        parts.push("No entry matches these filters, nor any of them with one filter removed.");
      }
      return parts.join(" ");
    }

    // A search that keeps every entry in view says so, where the word is, and what narrows.
    function everyEntryText(state, shown) {
      let common = null;
      shown.forEach((i) => {
        const f = hits.fields.get(i) || new Set();
        common = common === null ? new Set(f) : new Set([...common].filter((x) => f.has(x)));
      });
      const where = common && common.size === 1 ? FIELD_WORDS[[...common][0]] : null;
      const terms = queryTerms(state.q);
      const axis = data.axes.find((a) => !a.derived && terms.some((t) =>
        fold(a.label).indexOf(t) >= 0 || fold(a.short).indexOf(t) >= 0));
      const n = shown.length;
      let text = "\u201c" + state.q + "\u201d is in every " + (n === data.entries.length ? "" : "matching ") +
        "entry" + (where ? "\u2019s " + where.replace(/^the /, "") : "") + ", so it narrows nothing: all " +
        fmt(n) + " are shown, best match first.";
      text += axis ? " Try the " + axis.label + " filter, or a more specific word."
        : " Try a more specific word, or a filter.";
      return text;
    }

    // Entry positions in the order of a sort; entries.js is already newest first.
    function order(name) {
      if (!orders[name]) {
        const entries = data.entries;
        const ids = entries.map((_, i) => i);
        if (name === "year-asc") {
          ids.sort((a, b) => (Number(entries[a][YEAR]) || 0) - (Number(entries[b][YEAR]) || 0) ||
            a - b);
        } else if (name === "added") {  // the day each entry joined the corpus, latest first
          ids.sort((a, b) => (entries[a][ADDED] < entries[b][ADDED] ? 1 : 0) -
            (entries[a][ADDED] > entries[b][ADDED] ? 1 : 0) || a - b);
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

    function chipHref(axis, value) {
      const params = new URLSearchParams();
      params.set(axis, value);
      return "index.html?" + params.toString();
    }

    function entryItem(e, i) {
      const terms = hits && hits.terms.get(i);
      const li = el("li", { "class": "entry", "data-key": e[KEY] });
      const h3 = li.appendChild(el("h3"));
      h3.appendChild(marked(el("a", { href: "papers/" + e[KEY] + ".html" }), e[TITLE], terms));
      if (e[NAME]) {  // the short name the work goes by ("Puppeteer"), searched first
        h3.appendChild(document.createTextNode(" "));
        h3.appendChild(marked(el("span", { "class": "short-name" }), e[NAME], terms));
      }
      if (e[NEW]) {
        h3.appendChild(document.createTextNode(" "));
        h3.appendChild(el("span", {
          "class": "new", title: "Added on " + e[ADDED] + ", after the latest release"
        }, "new"));
      }
      const meta = li.appendChild(el("p", { "class": "meta" }));
      const g = data.group;
      if (g >= 0 && e[VALUES][g].length) {
        meta.appendChild(el("span", { "class": "kind" }, data.axes[g].values[e[VALUES][g][0]][1]));
        meta.appendChild(document.createTextNode(" \u00b7 "));
      }
      meta.appendChild(marked(el("span", { "class": "byline" }), e[BYLINE], terms));
      e[LINKS].forEach((link) => {
        meta.appendChild(document.createTextNode(" \u00b7 "));
        meta.appendChild(el("a", { href: link[1] }, link[0]));
      });
      meta.appendChild(document.createTextNode(" "));
      meta.appendChild(el("button", { type: "button", "class": "copy-bib",
        "aria-label": "Copy the BibTeX of " + e[TITLE] }, "BibTeX"));
      li.appendChild(marked(el("p", { "class": "summary" }), e[SUMMARY], terms));
      const chips = li.appendChild(el("p", { "class": "chips" }));
      data.axes.forEach((axis, a) => {
        if (!data.onCard.has(a)) { return; }
        e[VALUES][a].forEach((j) => {
          const v = axis.values[j];
          const attrs = { "class": "chip chip-" + axis.id, href: chipHref(axis.id, v[0]) };
          if (v[4]) { attrs.title = v[4]; }
          chips.appendChild(el("a", attrs, v[2]));
          chips.appendChild(document.createTextNode(" "));
        });
      });
      const elsewhere = hits && hits.fields.get(i);
      if (elsewhere) {  // words found where the card does not show them
        const unseen = [...elsewhere].filter((f) => FIELD_WORDS[f] && f !== "tags" && f !== "name");
        if (unseen.length && ![...terms].some((t) => fold(e[TITLE] + " " + e[SUMMARY] + " " +
          e[BYLINE]).indexOf(t) >= 0)) {
          const words = [...new Set(unseen.map((f) => FIELD_WORDS[f]))];
          li.appendChild(el("p", { "class": "found-in" }, "Found in " + words.join(" and ") + ": " +
            [...terms].join(", ") + "."));
        }
      }
      return li;
    }

    // One page of SHOWN (matching positions, in order), in sections by the group axis when the
    // reader groups the list, else as one list.
    function renderPage(shown, grouped) {
      const size = data.pageSize;
      const members = shown.slice((page - 1) * size, page * size);
      const g = data.group;
      const frag = document.createDocumentFragment();
      if (!grouped || g < 0) {
        const ol = frag.appendChild(el("ol", { "class": "entries", id: "entries" }));
        members.forEach((i) => { ol.appendChild(entryItem(data.entries[i], i)); });
      } else {
        const groupOf = (i) => {
          const vs = data.entries[i][VALUES][g];
          return vs.length ? vs[0] : data.axes[g].values.length;
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
        Array.from(sections.keys()).sort((a, b) => a - b).forEach((s, k) => {
          const label = s < data.axes[g].values.length ? data.axes[g].values[s][1] : "Other";
          const list = sections.get(s);
          const section = frag.appendChild(el("section", {
            "class": "category", id: "section-" + (k + 1)
          }));
          const h2 = section.appendChild(el("h2", null, label + " "));
          const n = list.length;
          const all = totals.get(s);
          h2.appendChild(el("span", { "class": "count" },
            "(" + fmt(n) + (n !== all ? " of " + fmt(all) : "") + ")"));
          const ol = section.appendChild(el("ol", { "class": "entries" }));
          list.forEach((i) => { ol.appendChild(entryItem(data.entries[i], i)); });
        });
      }
      results.querySelectorAll(":scope > section.category, :scope > ol.entries")
        .forEach((s) => { s.remove(); });
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

    // The active filters as chips above the results, each a button that removes it.
    function renderActive(state) {
      active.textContent = "";
      const chips = [];
      if (state.q) { chips.push(["Search: \u201c" + state.q + "\u201d", "q", ""]); }
      if (state.since) { chips.push(["Added since " + state.since, "since", ""]); }
      data.axes.forEach((axis) => {
        (state.facets[axis.id] || []).forEach((v) => {
          const j = axis.valueAt[v];
          const label = j === undefined ? v : axis.derived ? axis.values[j][1] : axis.values[j][2];
          chips.push([axis.derived ? axis.label + ": " + label : label, axis.id, v]);
        });
      });
      active.hidden = !chips.length;
      if (!chips.length) { return; }
      const list = active.appendChild(el("ul", { "aria-label": "Active filters" }));
      chips.forEach((c) => {
        const b = list.appendChild(el("li")).appendChild(el("button", {
          type: "button", "class": "active-chip", "data-axis": c[1], "data-value": c[2],
          "aria-label": "Remove " + c[0]
        }, c[0]));
        b.appendChild(el("span", { "aria-hidden": "true", "class": "x" }, "\u00d7"));
      });
      if (chips.length > 1) {
        list.appendChild(el("li")).appendChild(el("button", {
          type: "button", "class": "clear-all", "data-clear": "1"
        }, "Clear all"));
      }
    }

    function clearAll() {
      applyToForm({ q: "", sort: "", group: groupBox ? groupBox.checked : false, since: "",
        facets: axes.reduce((o, a) => { o[a] = []; return o; }, {}) });
      update(true);
    }

    // Re-render from the form and PAGE. PUSH: true adds a history entry, false replaces the
    // current one, null leaves the address alone. KEEP_PAGE: else back to page 1.
    function update(push, keepPage) {
      if (!keepPage) { page = 1; }
      if (!data) {
        const rank = (p) => (p === true ? 2 : p === false ? 1 : 0);
        queued = { push: queued && rank(queued.push) > rank(push) ? queued.push : push };
        status.textContent = "Loading entries...";
        publish({ pending: true });
        loadEntries();
        return;
      }
      const state = formState();
      const searching = queryTerms(state.q).length > 0;
      if (searching && !engine) { loadSearch(); }
      const found = searching && engine ? (hits = S.searchHits(data, engine, state.q, hits)) : null;
      if (!found) { hits = null; }
      const result = match(state, found && found.on);
      data.spans.forEach((s) => {  // only what changed is written: fewer style updates
        const n = String(s[1] === undefined || s[2] === undefined ? 0 : result.counts[s[1]][s[2]]);
        if (s[0].textContent !== n) { s[0].textContent = n; }
        const off = n === "0" && !s[3].checked;  // ticking it could only empty the list
        if (s[3].disabled !== off) { s[3].disabled = off; }
      });
      hideEmptyGroups();
      showSort(state);
      showActive();
      const how = sortOf(state);
      let shown;
      if (how === "relevance" && found) {
        shown = order("year").filter((i) => result.matched[i] === 1);
        const score = found.score;
        shown.sort((a, b) => score[b] - score[a]);  // stable: ties stay newest first
      } else {
        shown = order(how === "relevance" ? "year" : how).filter((i) => result.matched[i] === 1);
      }
      const pages = Math.max(1, Math.ceil(shown.length / data.pageSize));
      const corrected = page > pages;  // ?page=N past the end: the last page, and say so
      page = Math.min(page, pages);
      state.page = page;
      const count = renderPage(shown, state.group);
      publish({ keys: shown.map((i) => data.entries[i][KEY]) });
      renderPager(state, pages);
      renderActive(state);
      none.hidden = shown.length !== 0;
      if (!shown.length) { why.textContent = explainEmpty(state, found && found.on); }
      showResults.textContent = shown.length ? "Show " + plural(shown.length, "result", "results")
        : "No results: change the filters";
      const pending = searching && !engine ? " Loading search index..." : "";
      let sinceText = "";
      if (state.since) {
        sinceText = data.releases.some((r) => r[0] === state.since)
          ? "Added since release " + state.since + ". "
          : "There is no release " + state.since + ": no entry is shown. ";
      }
      // a value the address asks for that no facet has is said where the count is read
      unknownValues().forEach((said) => { sinceText += said + " "; });
      let text = sinceText + statusText({
        first: (page - 1) * data.pageSize + 1, count: count, matching: shown.length,
        total: data.entries.length, pages: pages
      });
      const filtered = state.since || data.axes.some((a) => (state.facets[a.id] || []).length);
      const unsearched = !found || shown.length < 2 ? 0
        : filtered ? total(match(state, null).matched) : data.entries.length;
      if (found && shown.length > 1 && shown.length === unsearched) {
        text = sinceText + everyEntryText(state, shown);
      } else if (found && shown.length && how === "relevance") {
        text += " Best match first.";
      }
      status.textContent = text + pending;
      follow(state);
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

    // Which entries the view holds, for the downloads (listexport.js).
    function publish(detail) {
      document.dispatchEvent(new CustomEvent("litcorpus-view", { detail: detail }));
    }

    // One filter, one value, no words: the feed of that value (feeds/AXIS/VALUE.xml, made for
    // every value some entry carries) lets the reader follow it.
    function follow(state) {
      const note = document.getElementById("follow");
      const chosen = [];
      data.axes.forEach((axis, a) => {
        (state.facets[axis.id] || []).forEach((v) => { chosen.push([axis, a, v]); });
      });
      let href = null;
      if (chosen.length === 1 && !state.q && !state.since && !chosen[0][0].derived) {
        const axis = chosen[0][0], a = chosen[0][1], j = axis.valueAt[chosen[0][2]];
        if (j !== undefined && data.entries.some((e) => e[VALUES][a].indexOf(j) >= 0)) {
          href = "feeds/" + axis.id + "/" + axis.values[j][0] + ".xml";
        }
      }
      note.hidden = !href;
      if (href) { note.querySelector("a").setAttribute("href", href); }
    }

    // Filter groups that no matching entry has a value in are hidden (a benchmark's measures,
    // say, while only RL methods are listed), unless one of their own values is ticked.
    function hideEmptyGroups() {
      let hidden = 0;
      form.querySelectorAll("fieldset.facet").forEach((f) => {
        const box = f.closest("details.facet-fold") || f;
        const any = Array.from(f.querySelectorAll(".count")).some((c) => c.textContent !== "0") ||
          f.querySelector("input:checked");
        if (box.hidden !== !any) { box.hidden = !any; }
        if (!any) { hidden += 1; }
      });
      hiddenNote.hidden = !hidden;
      hiddenNote.textContent = hidden ? plural(hidden, "filter group is", "filter groups are") +
        " hidden: no matching entry has a value there." : "";
    }

    // "N new since your last visit": the page knows how many entries joined on each day; the
    // browser remembers the latest day it has seen (nothing is sent anywhere). A first visit
    // only remembers; a later one names what joined since, with the list that shows it first.
    function visitNote() {
      const note = document.getElementById("visit-note");
      let days = {};
      try { days = JSON.parse(note.getAttribute("data-added-days") || "{}"); } catch (e) { return; }
      const latest = Object.keys(days).sort().pop();
      let seen = null;
      try {
        seen = window.localStorage.getItem(LAST_SEEN);
        if (latest) { window.localStorage.setItem(LAST_SEEN, latest); }
      } catch (e) { return; }  // storage off: nothing to compare with
      if (!seen || !latest || latest <= seen) { return; }
      const n = Object.keys(days).filter((d) => d > seen).reduce((sum, d) => sum + days[d], 0);
      note.textContent = plural(n, "entry", "entries") + " added since your last visit (" + seen +
        "): ";
      note.appendChild(el("a", { href: "index.html?sort=added" }, "show the most recent first"));
      note.appendChild(document.createTextNode("."));
      note.hidden = false;
    }
    visitNote();

    // The view a paper page leads back to, stored as the reader leaves the list.
    function remember() {
      try { window.sessionStorage.setItem(LAST_LIST, window.location.href); } catch (e) { /* off */ }
    }
    window.addEventListener("pagehide", remember);

    // On a phone the filters open over the list, with a button that shows the results.
    function openPanel(open) {
      panel.classList.toggle("open", open);
      toggle.setAttribute("aria-expanded", String(open));
      document.body.classList.toggle("panel-open", open);
      if (open) { panel.querySelector("h2").setAttribute("tabindex", "-1"); panel.querySelector("h2").focus(); }
    }

    searchForm.addEventListener("submit", (ev) => { ev.preventDefault(); update(true); });
    form.addEventListener("submit", (ev) => { ev.preventDefault(); update(true); });
    form.addEventListener("change", () => { update(true); });
    sort.addEventListener("change", () => {
      sortChoice = sort.value;
      const auto = sortOf(Object.assign(formState(), { sort: "" }));
      if (sortChoice === auto) { sortChoice = ""; }
      update(true);
    });
    if (groupBox) { groupBox.addEventListener("change", () => { update(true, true); }); }
    // The first word typed shows at once; typing that follows within TYPING_MS waits for one
    // pass at the end, so fast typing does not redraw (and announce) every letter.
    function typed() {
      if (typingTimer) { typedSince = true; return; }
      if (data && !engine && queryTerms(q.value).length) {  // ready() shows it, once built
        status.textContent = "Loading search index...";
        return;
      }
      update(false);
      typingTimer = window.setTimeout(() => {
        typingTimer = null;
        if (typedSince) { typedSince = false; typed(); }
      }, TYPING_MS);
    }
    q.addEventListener("input", () => {
      page = 1;
      loadEntries();
      if (queryTerms(q.value).length) { loadSearch(); }
      typed();
    });
    ["focus", "pointerover", "touchstart"].forEach((type) => {  // about to search: load it
      q.addEventListener(type, () => { loadEntries(); loadSearch(); }, { once: true, passive: true });
    });
    if (!(navigator.connection && navigator.connection.saveData)) {
      const idle = window.requestIdleCallback || ((f) => window.setTimeout(f, 1000));
      idle(() => { loadSearch(); }, { timeout: 3000 });
    }
    document.getElementById("clear").addEventListener("click", clearAll);
    document.getElementById("clear-empty").addEventListener("click", clearAll);
    active.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) { return; }
      if (b.hasAttribute("data-clear")) { clearAll(); return; }
      const axis = b.getAttribute("data-axis");
      const value = b.getAttribute("data-value");
      if (axis === "q") { q.value = ""; }
      else if (axis === "since") { since = ""; }
      else {
        const input = form.querySelector('input[name="' + axis + '"][value="' + CSS.escape(value) + '"]');
        if (input) { input.checked = false; }
        if (unknown[axis]) { unknown[axis] = unknown[axis].filter((v) => v !== value); }
      }
      update(true);
      const next = active.querySelector("button");
      (next || q).focus();
    });
    toggle.hidden = false;
    closer.hidden = false;
    showResults.hidden = false;
    toggle.addEventListener("click", () => { openPanel(toggle.getAttribute("aria-expanded") !== "true"); });
    closer.addEventListener("click", () => { openPanel(false); toggle.focus(); });
    showResults.addEventListener("click", () => {
      openPanel(false);
      focusResults = true;
      results.focus({ preventScroll: true });
      document.getElementById("toolbar").scrollIntoView();
    });
    panel.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && panel.classList.contains("open")) { openPanel(false); toggle.focus(); }
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
      [form, searchForm, pager, toggle, sort].forEach((node) => {
        node.addEventListener(type, loadEntries, { once: true, passive: true });
      });
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
    if (initial.q) { loadSearch(); }
    if (isDefault(initial)) { status.textContent = status.getAttribute("data-default"); }
    else { update(null, true); }
  }


  var form = document.getElementById("facets");
  if (form) { listPage(form); }
}());
