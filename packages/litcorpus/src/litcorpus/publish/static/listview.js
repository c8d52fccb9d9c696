// How the list page draws (list.js decides what): an entry's card with the words a search
// matched marked, a page of cards in groups, the pager, the active filters as chips, the status
// line, and the note of what joined since the last visit. Data are only ever written with
// textContent or attributes, never parsed as HTML. Exposes window.LitcorpusView.
(function () {
  "use strict";
  // Positions in an entry record of assets/entries.js (litcorpus/publish/listing.py).
  const R = { KEY: 0, TITLE: 1, YEAR: 3, BYLINE: 4, SUMMARY: 5, LINKS: 6, VALUES: 7, ADDED: 8,
    NEW: 9, HELD: 10, NAME: 11 };
  const KEY = R.KEY, TITLE = R.TITLE, BYLINE = R.BYLINE, SUMMARY = R.SUMMARY, LINKS = R.LINKS;
  const VALUES = R.VALUES, ADDED = R.ADDED, NEW = R.NEW, NAME = R.NAME;
  const PAGER_SPAN = 2;
  const LAST_SEEN = "litcorpus-seen";  // localStorage: the latest day added at the last visit
  const fold = window.LitcorpusSearch.fold;  // listsearch.js
  // What a search field is called where a card says the words were found elsewhere.
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

  function chipHref(axis, value) {
    const params = new URLSearchParams();
    params.set(axis, value);
    return "index.html?" + params.toString();
  }

  // One entry's card; HITS: what the search matched (or null).
  function entryItem(data, hits, e, i) {
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

  // MEMBERS (entry positions, one page of SHOWN, the whole view) as a fragment: in sections by
  // the group axis when the reader groups the list (each counting its share of SHOWN), else as
  // one list.
  function pageFragment(data, hits, members, shown, grouped) {
    const g = data.group;
    const frag = document.createDocumentFragment();
    if (!grouped || g < 0) {
      const ol = frag.appendChild(el("ol", { "class": "entries", id: "entries" }));
      members.forEach((i) => { ol.appendChild(entryItem(data, hits, data.entries[i], i)); });
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
        list.forEach((i) => { ol.appendChild(entryItem(data, hits, data.entries[i], i)); });
      });
    }
    return frag;
  }

  // The pager of PAGES into PAGER, PAGE current; HREF(n) is page n's address.
  function renderPager(pager, page, pages, href) {
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
        href: href(n), "data-page": String(n)
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
  function renderActive(active, data, state) {
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

  window.LitcorpusView = { R: R, FIELD_WORDS: FIELD_WORDS, el: el, fmt: fmt, plural: plural,
    statusText: statusText, pageFragment: pageFragment, renderPager: renderPager,
    renderActive: renderActive, visitNote: visitNote };
}());
