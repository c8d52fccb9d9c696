// The list page's state and events (app.js runs first and marks the page as scripted): the
// form and the address stay in step; listmatch.js computes a view and listview.js draws it.
// index.html holds the first page of the default view; assets/entries.js (one record per entry,
// litcorpus/publish/listing.py) loads on the first sign of use, or at once when the address asks
// for another view. MiniSearch and its index (publish/search.py) load once the page is idle, in
// slices, unless the reader asked to save data (then on touching the search box). Filters and
// counts run over every entry; only the current page is in the DOM.
(function () {
  "use strict";
  const TYPING_MS = 120;
  const S = window.LitcorpusSearch;  // listsearch.js
  const V = window.LitcorpusView;  // listview.js
  const M = window.LitcorpusMatch;  // listmatch.js
  const FIELDS = S.FIELDS, BOOST = S.BOOST, queryTerms = S.queryTerms, fuzzyFor = S.fuzzyFor;
  const KEY = V.R.KEY, plural = V.plural;

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
    const follow = document.getElementById("follow");
    const axes = Array.from(form.querySelectorAll("fieldset.facet"),
      (f) => f.getAttribute("data-axis"));
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

    function formState() {
      const state = { q: q.value.trim(), sort: sortChoice, group: !!(groupBox && groupBox.checked),
        page: page, since: since, facets: {} };
      axes.forEach((a) => {
        state.facets[a] = Array.from(form.querySelectorAll('input[name="' + a + '"]'))
          .filter((i) => i.checked).map((i) => i.value).concat(unknown[a] || []);
      });
      return state;
    }

    function applyToForm(state) {
      q.value = state.q;
      since = state.since || "";
      sortChoice = M.SORTS.indexOf(state.sort) >= 0 ? state.sort : "";
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
      const effective = M.sortOf(state);
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

    // One page of SHOWN (matching positions, in order), drawn in place of the last.
    function renderPage(shown, grouped) {
      const members = shown.slice((page - 1) * data.pageSize, page * data.pageSize);
      const frag = V.pageFragment(data, hits, members, shown, grouped);
      results.querySelectorAll(":scope > section.category, :scope > ol.entries")
        .forEach((s) => { s.remove(); });
      results.insertBefore(frag, none);
      return members.length;
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
      const result = M.match(data, state, found && found.on);
      data.spans.forEach((s) => {  // only what changed is written: fewer style updates
        const n = String(s[1] === undefined || s[2] === undefined ? 0 : result.counts[s[1]][s[2]]);
        if (s[0].textContent !== n) { s[0].textContent = n; }
        const off = n === "0" && !s[3].checked;  // ticking it could only empty the list
        if (s[3].disabled !== off) { s[3].disabled = off; }
      });
      hideEmptyGroups();
      showSort(state);
      showActive();
      const how = M.sortOf(state);
      let shown;
      if (how === "relevance" && found) {
        shown = M.order(data, "year").filter((i) => result.matched[i] === 1);
        const score = found.score;
        shown.sort((a, b) => score[b] - score[a]);  // stable: ties stay newest first
      } else {
        shown = M.order(data, how === "relevance" ? "year" : how)
          .filter((i) => result.matched[i] === 1);
      }
      const pages = Math.max(1, Math.ceil(shown.length / data.pageSize));
      const corrected = page > pages;  // ?page=N past the end: the last page, and say so
      page = Math.min(page, pages);
      state.page = page;
      const count = renderPage(shown, state.group);
      publish({ keys: shown.map((i) => data.entries[i][KEY]) });
      V.renderPager(pager, page, pages, (n) => M.toQuery(Object.assign({}, state, { page: n }), axes));
      V.renderActive(active, data, state);
      none.hidden = shown.length !== 0;
      if (!shown.length) { why.textContent = M.explainEmpty(data, state, found && found.on, unknown); }
      showResults.textContent = shown.length ? "Show " + plural(shown.length, "result", "results")
        : "No results: change the filters";
      const pending = searching && !engine ? " Loading search index..." : "";
      status.textContent = M.statusLine(data, state, {
        found: found, hits: hits, unknown: unknown, shown: shown, how: how, count: count,
        page: page, pages: pages
      }) + pending;
      const feed = M.feedOf(data, state);  // one value filtered: its feed follows the view
      follow.hidden = !feed;
      if (feed) { follow.querySelector("a").setAttribute("href", feed); }
      if (focusResults) {
        focusResults = false;
        results.focus({ preventScroll: true });
        if (results.getBoundingClientRect().top < 0) { results.scrollIntoView(); }
      }
      if (push !== null || corrected) {
        const url = M.toQuery(state, axes);
        const current = window.location.search || M.here();
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

    V.visitNote();

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
      const auto = M.sortOf(Object.assign(formState(), { sort: "" }));
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
      const state = M.readState(axes);
      if (!data && M.isDefault(state, axes)) { return; }  // still the page as served
      applyToForm(state);
      page = state.page;
      update(null, true);
    });
    const initial = M.readState(axes);
    applyToForm(initial);
    page = initial.page;
    if (initial.q) { loadSearch(); }
    if (M.isDefault(initial, axes)) { status.textContent = status.getAttribute("data-default"); }
    else { update(null, true); }
  }


  var form = document.getElementById("facets");
  if (form) { listPage(form); }
}());
