// What the list page shows, computed from the view's description (list.js keeps the page's
// state and draws with listview.js): the view an address asks for and the address of a view,
// the order of a sort, which entries match and how many each filter value would, the status
// line, why nothing matches, and the feed that follows a view. Exposes window.LitcorpusMatch.
(function () {
  "use strict";
  const V = window.LitcorpusView;  // listview.js
  const S = window.LitcorpusSearch;  // listsearch.js
  const KEY = V.R.KEY, TITLE = V.R.TITLE, YEAR = V.R.YEAR, VALUES = V.R.VALUES, ADDED = V.R.ADDED;
  const HELD = V.R.HELD;
  const SORTS = ["relevance", "year", "added", "year-asc", "title"];
  const fmt = V.fmt, plural = V.plural, fold = S.fold, queryTerms = S.queryTerms;
  const FIELD_WORDS = V.FIELD_WORDS;

  // The view the address asks for, over the filters' AXES.
  function readState(axes) {
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

  // The order a view is shown in: the reader's choice, else best match while searching.
  function sortOf(state) {
    const s = SORTS.indexOf(state.sort) >= 0 ? state.sort : "";
    if (s === "relevance" && !state.q) { return "year"; }
    return s || (state.q ? "relevance" : "year");
  }

  function isDefault(state, axes) {
    return !state.q && !state.sort && !state.group && state.page === 1 && !state.since &&
      axes.every((a) => !state.facets[a].length);
  }

  // The address of this page without a query ("./" when it is a folder's index).
  function here() { return window.location.pathname.split("/").pop() || "./"; }

  function toQuery(state, axes) {
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
  function match(data, state, found) {
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
  function unknownValues(data, unknown) {
    const out = [];
    Object.keys(unknown).forEach((a) => {
      const label = data.axes[data.axisAt[a]].label;
      unknown[a].forEach((v) => { out.push("There is no " + label + " \u201c" + v + "\u201d."); });
    });
    return out;
  }

  // Why nothing matches: each filter that alone empties the list, and how many entries its
  // removal would show.
  function explainEmpty(data, state, found, unknown) {
    const parts = unknownValues(data, unknown);
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
      const n = total(match(data, Object.assign({}, state, change), change.q === "" ? null : found).matched);
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
  function everyEntryText(data, state, shown, hits) {
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
  function order(data, name) {
    const orders = data.orders || (data.orders = {});
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

  // One filter, one value, no words: the feed of that value (feeds/AXIS/VALUE.xml, made for
  // every value some entry carries), which lets the reader follow it; else null.
  function feedOf(data, state) {
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
    return href;
  }


  // The status line of a view: which release it counts from and values the address asks for
  // that no facet has, then what it shows (a search that narrows nothing says so instead).
  // VIEW: {found, hits, unknown, shown, how, count, page, pages}.
  function statusLine(data, state, view) {
    const shown = view.shown, found = view.found;
    let sinceText = "";
    if (state.since) {
      sinceText = data.releases.some((r) => r[0] === state.since)
        ? "Added since release " + state.since + ". "
        : "There is no release " + state.since + ": no entry is shown. ";
    }
    // a value the address asks for that no facet has is said where the count is read
    unknownValues(data, view.unknown).forEach((said) => { sinceText += said + " "; });
    const text = sinceText + V.statusText({
      first: (view.page - 1) * data.pageSize + 1, count: view.count, matching: shown.length,
      total: data.entries.length, pages: view.pages
    });
    const filtered = state.since || data.axes.some((a) => (state.facets[a.id] || []).length);
    const unsearched = !found || shown.length < 2 ? 0
      : filtered ? total(match(data, state, null).matched) : data.entries.length;
    if (found && shown.length > 1 && shown.length === unsearched) {
      return sinceText + everyEntryText(data, state, shown, view.hits);
    }
    return found && shown.length && view.how === "relevance" ? text + " Best match first." : text;
  }

  window.LitcorpusMatch = { SORTS: SORTS, readState: readState, sortOf: sortOf,
    isDefault: isDefault, here: here, toQuery: toQuery, match: match, total: total,
    unknownValues: unknownValues, explainEmpty: explainEmpty, everyEntryText: everyEntryText,
    order: order, feedOf: feedOf, statusLine: statusLine };
}());
