"""The list page's search: what is indexed of each entry, folded as the reader's words are.

assets/search-index.js sets `window.LITCORPUS_SEARCH` to `{"docs": [[key, text], ...]}`: for
each entry, its title, authors and byline, where and when it appeared (venue, year,
affiliation), its identifiers, its tags as the chips show them (with the values' ids and codes)
and its summary and notes, folded: lower case, accents dropped, every run of characters that
are not letters or digits made one space, and every hyphenated word also written whole
("multi-agent" gives "multi agent multiagent", so both spellings find it). The text starts
with a space, so static/app.js, folding the query the same way, finds a word that starts with
each query word by looking for " " + word: every word must match, as a prefix. One scan of
short strings, with nothing to build in the browser, keeps the first search of 10,000 entries
fast (BENCHMARKS.md).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

WORDS_AND_HYPHENS = re.compile(r"[\w-]+")  # one pass, no backtracking: linear in the text
NOT_WORD = re.compile(r"[\W_]+")


def _compounds(text: str) -> list[str]:
    """Each hyphenated word of TEXT written whole: words joined by single hyphens
    ('multi-agent' -> 'multiagent'; 'a--b' joins nothing). A run of word characters and
    hyphens is split once, so a long word costs its length, not its square."""
    out = []
    for run in WORDS_AND_HYPHENS.findall(text):
        if "-" not in run:
            continue
        group: list[str] = []
        for part in [*run.split("-"), ""]:  # an empty part (a double or end hyphen) ends one
            if part:
                group.append(part)
                continue
            if len(group) > 1:
                out.append("".join(group))
            group = []
    return out


def fold(text: str) -> str:
    """TEXT as the index holds it: lower case, without accents, words parted by single spaces,
    each hyphenated word also whole ('Multi-Agent Débat' -> 'multi agent debat multiagent')."""
    plain = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).lower()
    return NOT_WORD.sub(" ", " ".join([plain, *_compounds(plain)])).strip()


def search_doc(e: dict[str, Any]) -> list[str]:
    """One entry's record in the index: its key and its folded text, led by a space."""
    data = e["data"]
    ids = [str(v) for v in (data.get("ids") or {}).values()]
    tags = [f"{t.text} {t.value}" for t in e["tags"]]
    parts = [
        str(e["title"]),
        *e["authors"],
        e["byline"],
        *(str(x) for x in (e["venue"], e["year"], e["affiliation"]) if x),
        *ids,
        *tags,
        *(str(x) for x in (e["summary"], e["notes"]) if x),
    ]
    return [e["key"], " " + fold(" ".join(parts))]


def search_index(entries: list[dict[str, Any]]) -> bytes:
    """assets/search-index.js for ENTRIES."""
    data = {"docs": [search_doc(e) for e in entries]}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"window.LITCORPUS_SEARCH = {text};\n".encode()
