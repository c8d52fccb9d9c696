// The list page's take-aways: the entries of the current view as BibTeX, RIS, CSV or CSL-JSON
// (assets/exports/<format>.js holds each entry's part as `litcorpus export` writes it, and how
// the format joins them; see litcorpus/publish/viewexports.py), a link to the view, and each card's
// BibTeX. list.js tells which entries the view holds with a "litcorpus-view" event. Nothing is
// sent anywhere: downloads are made in the browser.
(function () {
  "use strict";
  const CLIPBOARD_WAIT_MS = 1500;
  const fmt = window.LitcorpusView.fmt;  // listview.js
  const ASSETS = document.currentScript.src.replace(/listexport\.js$/, "");
  const results = document.getElementById("results");
  if (!results) { return; }
  const bar = document.getElementById("take-away");  // on the first page, not on list/N.html
  const what = document.getElementById("take-away-what");
  const note = document.getElementById("take-away-note");
  const total = bar ? Number(bar.getAttribute("data-total")) : 0;
  let view = null;  // the view's keys; null: every entry (the page as served)
  let pending = false;  // the address asks for a view whose entries are still loading
  const loaded = {};  // format id: its data from assets/exports/<format>.js
  const waiting = {};  // format id: callbacks waiting for it

  // The parts of format ID (each entry's text and how they join), loaded on first use only.
  function withFormat(id, done) {
    if (loaded[id]) { done(loaded[id]); return; }
    (waiting[id] = waiting[id] || []).push(done);
    if (waiting[id].length > 1) { return; }
    const name = "LITCORPUS_EXPORT_" + id.replace(/-/g, "_");
    const s = document.createElement("script");
    s.src = ASSETS + "exports/" + id + ".js";
    s.onload = () => {
      loaded[id] = window[name];
      window[name] = null;
      const calls = waiting[id];
      waiting[id] = [];
      calls.forEach((f) => { f(loaded[id]); });
    };
    s.onerror = () => { waiting[id] = []; say("The downloads could not be loaded."); };
    document.head.appendChild(s);
  }

  function say(text) { if (note) { note.textContent = text; } }

  function showCount() {
    const n = view ? view.length : total;
    what.textContent = pending ? "Loading the view..." : n === total
      ? "Download all " + fmt(n) + " entries as" : "Download these " + fmt(n) + " as";
    bar.querySelectorAll("button[data-format]").forEach((b) => { b.disabled = pending || !n; });
  }

  // What the view holds in format F: head + sep-joined parts (in key order) + tail, exactly
  // what `litcorpus export` writes for those entries.
  function text(f) {
    const chosen = view ? new Set(view) : null;
    const parts = [];
    f.keys.forEach((k, i) => { if (!chosen || chosen.has(k)) { parts.push(f.parts[i]); } });
    return f.head + parts.join(f.sep) + f.tail;
  }

  function download(id) {
    withFormat(id, (f) => {
      const blob = new Blob([text(f)], { type: f.type + ";charset=utf-8" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = f.file;
      document.body.appendChild(a);
      a.click();
      a.remove();
      window.setTimeout(() => { URL.revokeObjectURL(a.href); }, 1000);
      say(fmt(view ? view.length : total) + " entries downloaded as " + f.label + " (" + f.file +
        ").");
    });
  }

  // The clipboard, or, where the browser refuses it or never answers (some file:// pages), the
  // text shown selected in NODE for the reader to copy.
  function copy(value, node, copied) {
    const shown = () => {
      node.textContent = value;
      node.hidden = false;
      const range = document.createRange();
      range.selectNodeContents(node);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      copied("Selected: press Ctrl+C to copy");
    };
    if (!navigator.clipboard || !navigator.clipboard.writeText) { shown(); return; }
    let settled = false;  // a clipboard that neither writes nor refuses (some file:// pages)
    const once = (f) => () => { if (!settled) { settled = true; f(); } };
    navigator.clipboard.writeText(value).then(once(() => { copied("Copied"); }), once(shown));
    window.setTimeout(once(shown), CLIPBOARD_WAIT_MS);
  }

  if (bar) {
    bar.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) { return; }
      if (b.hasAttribute("data-format")) { download(b.getAttribute("data-format")); }
      else if (b.id === "copy-link") {
        copy(window.location.href, document.getElementById("take-away-link"), (msg) => {
          say(msg === "Copied" ? "The link to this view is copied." : msg);
        });
      }
    });
    document.addEventListener("litcorpus-view", (ev) => {
      pending = ev.detail.pending === true;
      view = pending ? null : ev.detail.keys;
      say("");
      showCount();
    });
    showCount();
  }

  // A card's "BibTeX" button: that entry's BibTeX to the clipboard (cards are redrawn, so the
  // list listens once for all of them).
  results.addEventListener("click", (ev) => {
    const b = ev.target.closest("button.copy-bib");
    if (!b) { return; }
    const card = b.closest("li.entry");
    withFormat("bibtex", (f) => {
      const i = f.keys.indexOf(card.getAttribute("data-key"));
      if (i < 0) { return; }
      let pre = card.querySelector("pre.bibtex");
      if (!pre) {
        pre = document.createElement("pre");
        pre.className = "bibtex";
        pre.hidden = true;
        card.appendChild(pre);
      }
      copy(f.parts[i], pre, (msg) => { b.textContent = msg === "Copied" ? "BibTeX copied" : msg; });
    });
  });
}());
