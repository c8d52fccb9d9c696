"""The list page's ranked search: each entry's words, by field, as a MiniSearch index.

MiniSearch (npm, pinned in package.json; see vendor) ranks in the browser by BM25 with a
weight per field (static/listsearch.js: the short name and title first, then the first author, the
other authors and the summary, then venue and year, then the affiliation, the curator's notes
last), with prefix and typo-tolerant matching. Identifiers are left out (each is a word of its
own: half the index's words would be theirs), and so are the tags: static/listsearch.js gives a
second, tiny MiniSearch the words of each tag value and takes the entries that carry a
matching one from assets/entries.js, which keeps a third of the postings out of the index.

Building the index in the browser takes longer than a first search may (BENCHMARKS.md), so it
is built here, in the form MiniSearch's own toJSON writes and its loadJS reads (serialisation
version 2; tests/test_search.py holds the two to each other): assets/search-index.js sets
`window.LITCORPUS_SEARCH` to it (escape.js_data).

A field's words are folded as static/listsearch.js folds the reader's: lower case, accents dropped,
split at every character that is not a letter or a digit, and each hyphenated word also
written whole ("Multi-Agent" gives multi, agent and multiagent, so both spellings find it).
Folding is one pass over the text, linear in its length however long a word is.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..model.naming import TRUNCATED
from .escape import js_data

# What the index holds of an entry, in this order (static/listsearch.js names the same fields).
FIELDS = ("name", "title", "first", "authors", "summary", "venue", "place", "notes")
# A run of letters and digits, with any hyphenated parts: one match per word, no backtracking.
WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def fold(text: str) -> list[str]:
    """TEXT's words as the index holds them: Multi-Agent Débat gives multi, agent, multiagent
    and debat."""
    plain = (
        text
        if text.isascii()  # nothing to take accents from
        else "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    ).lower()
    out: list[str] = []
    for m in WORD.finditer(plain):
        word = m.group(0)
        if "-" in word:
            parts = word.split("-")
            out += [*parts, "".join(parts)]
        else:
            out.append(word)
    return out


def _given_first(name: str) -> str:
    family, _, given = name.partition(",")
    return f"{given.strip()} {family.strip()}".strip()


def search_fields(e: dict[str, Any]) -> dict[str, str]:
    """One entry's text for each field of FIELDS (an empty string when it has none)."""
    data = e["data"]
    names = [_given_first(a) for a in e["authors"] if a != TRUNCATED]
    where = [str(x) for x in (e["venue"], e["year"]) if x]
    return {
        "name": str(data.get("name") or ""),
        "title": str(e["title"]),
        "first": names[0] if names else "",
        "authors": " ".join(names[1:]),  # the others: the first has a field, and weight, of its own
        "summary": str(e["summary"] or ""),
        "venue": " ".join(where),
        "place": str(e["affiliation"] or ""),
        "notes": str(e["notes"] or ""),
    }


def minisearch_index(docs: list[tuple[str, dict[str, list[str]]]]) -> dict[str, Any]:
    """What MiniSearch's toJSON gives after addAll of DOCS ((id, {field: words}), in order)
    with FIELDS, a tokenizer that returns these words and no term processing."""
    field_ids = {f: i for i, f in enumerate(FIELDS)}
    postings: dict[str, dict[int, dict[int, int]]] = {}
    lengths: dict[str, list[int | None]] = {}
    average = [0.0] * len(FIELDS)
    seen = [0] * len(FIELDS)  # MiniSearch keeps a running mean over the documents so far
    for short, (_, by_field) in enumerate(docs):
        row: list[int | None] = []
        for name in FIELDS:
            words = by_field.get(name) or []
            fid = field_ids[name]
            if not words:  # MiniSearch skips an absent field: a hole in the row
                row.append(None)
                continue
            unique = len(set(words))
            row.append(unique)
            # documentCount - 1 is the index of this document, as MiniSearch counts
            average[fid] = (average[fid] * short + unique) / (short + 1)
            seen[fid] += 1
            for w in words:
                freqs = postings.setdefault(w, {}).setdefault(fid, {})
                freqs[short] = freqs.get(short, 0) + 1
        while row and row[-1] is None:  # a JavaScript array ends at its last set element
            row.pop()
        if row:  # MiniSearch keeps no lengths for a document with no field
            lengths[str(short)] = row
    return {
        "documentCount": len(docs),
        "nextId": len(docs),
        "documentIds": {str(i): key for i, (key, _) in enumerate(docs)},
        "fieldIds": field_ids,
        "fieldLength": lengths,
        "averageFieldLength": [a if seen[i] else None for i, a in enumerate(average)],
        "storedFields": {},
        "dirtCount": 0,
        "index": [
            [term, {str(f): {str(d): n for d, n in ds.items()} for f, ds in by_field.items()}]
            for term, by_field in postings.items()
        ],
        "serializationVersion": 2,
    }


def search_index(entries: list[dict[str, Any]]) -> bytes:
    """assets/search-index.js for ENTRIES."""
    docs = [(e["key"], {f: fold(t) for f, t in search_fields(e).items()}) for e in entries]
    return js_data("LITCORPUS_SEARCH", minisearch_index(docs))
