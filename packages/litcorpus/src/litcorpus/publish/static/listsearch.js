// The list page's search (list.js loads it first): the reader's words folded as the index folds
// its text (litcorpus/publish/search.py), the index's fields and weights, tag labels, stop-words
// and identifiers, and what a query matched. No DOM here; list.js renders what it returns.
window.LitcorpusSearch = (function () {
  "use strict";

  const KEY = 0, URL = 2, LINKS = 6, VALUES = 7;  // the entry columns it reads (entries.js)
  // The index's fields (search.FIELDS) and their weights: the short name and title first, then
  // the first author, the other authors and the summary, then venue and year, then the
  // affiliation, then the tags (TAG_SCORE, added for every value a word matches: about what a
  // single word in the summary scores), the curator's notes last.
  const FIELDS = ["name", "title", "first", "authors", "summary", "venue", "place", "notes"];
  const BOOST = { name: 6, title: 5, first: 4, authors: 2.5, summary: 2, venue: 1.5, place: 0.5,
    notes: 0.2 };
  const TAG_SCORE = 2;
  // The reader's words as the index holds its text (search.fold): lower case, accents dropped,
  // split wherever a character is not a letter or a digit.
  function fold(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  function queryTerms(q) { return fold(q).split(/[^\p{L}\p{N}]+/u).filter((t) => t); }

  // A text's words as the index holds them (search.fold): each hyphenated word also whole.
  function docTerms(text) {
    const out = [];
    (fold(text).match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) || []).forEach((w) => {
      const parts = w.split("-");
      out.push(...parts);
      if (parts.length > 1) { out.push(parts.join("")); }
    });
    return out;
  }

  // Typos are forgiven in words of five letters or more ("credt"; a shorter word's neighbours
  // are other words: "when" is no "Chen", "stop" no "step"), never in numbers (2025 is no 2026).
  function fuzzyFor(term) { return /^\p{L}{5,}$/u.test(term) ? 0.2 : false; }

  // Words a query does not need to match (it matches a tag's label with them: "when to stop").
  const STOP_WORDS = new Set(("a an and are as at be by can do does for from how in into is it " +
    "its of on or the this that to what when where which who whom why with").split(" "));
  // A tag whose label the query names ranks above free text: its label's words in a row, a
  // label of two words or more, or one of six letters or more ("Orchestrator", not "Yes").
  const LABEL_SCORE = 1000;

  // The identifiers a query names, if it is one: an arXiv id (in an address or bare), a DOI
  // (likewise), else an address. Compared with the entries' own addresses (identifiersOf).
  function identifiersOf(text) {
    const out = [];
    const arxiv = text.match(/(?:^|[^\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d.])/);
    if (arxiv) { out.push("arxiv:" + arxiv[1]); }
    const doi = text.match(/\b(10\.\d{4,9}\/[^\s?#]+)/);
    if (doi) { out.push("doi:" + doi[1].toLowerCase().replace(/[.,;)]+$/, "")); }
    const url = text.trim().match(/^https?:\/\/(?:www\.)?([^\s#?]+?)\/?(?:[?#].*)?$/i);
    if (url) { out.push("url:" + url[1].toLowerCase()); }
    return out;
  }

  // A second, tiny MiniSearch over the words of every tag value ("Credit: Agent", its code,
  // its id), and who carries each value. Built as soon as MiniSearch and the entries are both
  // here, while the larger index may still be on its way.
  function buildTagIndex(data) {
    if (!data || data.tagIndex || !window.MiniSearch) { return; }
    data.carriers = data.axes.map((axis) => axis.values.map(() => []));
    data.entries.forEach((e, i) => {
      e[VALUES].forEach((vs, a) => { vs.forEach((j) => { data.carriers[a][j].push(i); }); });
    });
    data.tagIndex = new window.MiniSearch({ fields: ["text"], tokenize: docTerms,
      processTerm: (t) => t, searchOptions: { prefix: true, fuzzy: fuzzyFor,
        tokenize: queryTerms, processTerm: (t) => t } });
    data.axes.forEach((axis, a) => {
      if (axis.derived) { return; }
      axis.values.forEach((v, j) => {
        data.tagIndex.add({ id: a + ":" + j, text: [axis.short, v[2], v[0]].join(" ") });
      });
    });
  }

  // What the search matched: per entry position, whether it matched every word (in the
  // index or in its tags), its score, the document words it matched (to mark them) and the
  // fields they are in. A query that names an entry's address or identifier finds that entry;
  // the words of a tag label it names are met by the tag's carriers, which rank first; and
  // words like "to" and "when" need not match unless the query has no other words.
  function searchHits(data, engine, query, hits) {
    buildTagIndex(data);
    if (!hits || hits.key !== query) {
      const n = data.entries.length;
      const on = new Uint8Array(n).fill(1);
      const score = new Float64Array(n);
      const terms = new Map();
      const fields = new Map();
      const add = (map, i, values) => {
        if (!map.has(i)) { map.set(i, new Set()); }
        values.forEach((v) => { map.get(i).add(v); });
      };
      const named = identifiersOf(query);
      if (named.length) {
        const found = data.entries.map((e) => named.some((id) => entryIds(e).has(id)));
        if (found.some((x) => x)) {
          found.forEach((x, i) => { on[i] = x ? 1 : 0; score[i] = x ? LABEL_SCORE : 0; });
          hits = { key: query, on: on, score: score, terms: terms, fields: fields };
          return hits;
        }
        const id = named.find((x) => x.startsWith("arxiv:") || x.startsWith("doi:"));
        if (id) { query = id.slice(id.indexOf(":") + 1); }  // else look for its words
      }
      const words = queryTerms(query);
      const met = words.map(() => null);  // per word: the carriers of a label it is in
      labelsIn(data, words).forEach((m) => {
        const carriers = data.carriers[m.a][m.j];
        carriers.forEach((i) => { score[i] += LABEL_SCORE; add(fields, i, ["tags"]); });
        for (let k = m.from; k < m.to; k += 1) { met[k] = (met[k] || []).concat(carriers); }
      });
      const plain = words.some((w) => !STOP_WORDS.has(w));
      words.forEach((word, k) => {
        if (plain && STOP_WORDS.has(word)) { return; }  // need not match
        const here = new Uint8Array(n);
        (met[k] || []).forEach((i) => { here[i] = 1; });
        engine.search(word).forEach((r) => {
          const i = data.posOf[r.id];
          if (i === undefined) { return; }
          here[i] = 1;
          score[i] += r.score;
          add(terms, i, r.terms);
          Object.keys(r.match).forEach((t) => { add(fields, i, r.match[t]); });
        });
        const tagged = new Uint8Array(n);
        data.tagIndex.search(word).forEach((r) => {
          const t = r.id.split(":").map(Number);
          data.carriers[t[0]][t[1]].forEach((i) => { tagged[i] = 1; });
        });
        for (let i = 0; i < n; i += 1) {
          if (!tagged[i]) { continue; }
          score[i] += TAG_SCORE;
          here[i] = 1;
          add(fields, i, ["tags"]);
        }
        for (let i = 0; i < n; i += 1) { if (!here[i]) { on[i] = 0; } }
      });
      hits = { key: query, on: on, score: score, terms: terms, fields: fields };
    }
    return hits;
  }

  // The tag labels WORDS name, each as {a, j, from, to}: its words in a row in WORDS.
  function labelsIn(data, words) {
    const out = [];
    data.axes.forEach((axis, a) => {
      if (axis.derived) { return; }
      axis.values.forEach((v, j) => {
        const label = queryTerms(String(v[1]));
        if (!label.length || (label.length === 1 && label[0].length < 6)) { return; }
        for (let k = 0; k + label.length <= words.length; k += 1) {
          if (label.every((w, x) => words[k + x] === w)) {
            out.push({ a: a, j: j, from: k, to: k + label.length });
          }
        }
      });
    });
    // the longest labels only: "debate reward" names the reward, not the Debate topology
    return out.filter((m) => !out.some((o) => o.from <= m.from && m.to <= o.to &&
      o.to - o.from > m.to - m.from));
  }

  // The identifiers of an entry's addresses (its key too), as identifiersOf gives them.
  function entryIds(e) {
    if (!e.ids) {
      e.ids = new Set(["key:" + e[KEY]]);
      [e[URL]].concat(e[LINKS].map((l) => l[1])).forEach((href) => {
        if (href) { identifiersOf(String(href)).forEach((id) => { e.ids.add(id); }); }
      });
    }
    return e.ids;
  }

  return { FIELDS: FIELDS, BOOST: BOOST, fold: fold, queryTerms: queryTerms, docTerms: docTerms,
    fuzzyFor: fuzzyFor, buildTagIndex: buildTagIndex, searchHits: searchHits };
}());
