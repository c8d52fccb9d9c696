"""The list page's search: what is indexed of each entry, and the search library's file.

assets/search-index.js sets `window.LITCORPUS_SEARCH` to `{"fields": [...], "docs": [[key,
text per field], ...]}`: the title, the authors, where and when it appeared (venue, year,
affiliation), its identifiers, its tags as the chips show them (with the values' ids and
codes) and its summary and notes, each folded as the reader's words are folded in the
browser: lower case, accents dropped, and every hyphenated word also written whole
("multi-agent" gives "multi-agent multiagent", so both spellings find it). static/app.js builds
a Lunr index from it on the first search (Lunr splits words at hyphens and spaces) and matches
every word of the query as a prefix.

Lunr is not part of this repository: assets/lunr.js is copied at build time from the Lunr
that the pinned MkDocs package ships (its search plugin's lunr.js, Lunr 2.3.9, MIT).
"""

from __future__ import annotations

import json
import re
import unicodedata
from importlib import resources
from typing import Any

LUNR = ("mkdocs.contrib.search", "templates/search/lunr.js")
FIELDS = ["title", "authors", "where", "ids", "tags", "text"]
COMPOUND = re.compile(r"\w+(?:-\w+)+")


def fold(text: str) -> str:
    """TEXT as the index holds it: lower case, without accents, each hyphenated word also
    whole ('Multi-Agent Débat' -> 'multi-agent debat multiagent')."""
    plain = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).lower()
    joined = [m.group(0).replace("-", "") for m in COMPOUND.finditer(plain)]
    return " ".join([plain, *joined]) if joined else plain


def search_doc(e: dict[str, Any]) -> list[str]:
    """One entry's record in the index: its key, then each of FIELDS, folded."""
    data = e["data"]
    ids = [str(v) for v in (data.get("ids") or {}).values()]
    tags = [f"{t.text} {t.value}" for t in e["tags"]]
    fields = [
        str(e["title"]),
        " ".join([*e["authors"], e["byline"]]),
        " ".join(str(x) for x in (e["venue"], e["year"], e["affiliation"]) if x),
        " ".join(ids),
        " ".join(tags),
        " ".join(str(x) for x in (e["summary"], e["notes"]) if x),
    ]
    return [e["key"], *(fold(f) for f in fields)]


def search_index(entries: list[dict[str, Any]]) -> bytes:
    """assets/search-index.js for ENTRIES."""
    data = {"fields": FIELDS, "docs": [search_doc(e) for e in entries]}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"window.LITCORPUS_SEARCH = {text};\n".encode()


def lunr_js() -> bytes:
    """The search library's file, from the installed package."""
    package, path = LUNR
    return (resources.files(package) / path).read_bytes()
