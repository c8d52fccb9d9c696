"""The downloads of the list's current view (assets/exports/<format>.js): each entry's BibTeX,
RIS, CSV line and CSL-JSON item exactly as the full exports write them, with how a format joins
its parts, so that the entries a reader has filtered, joined in key order, are what
`litcorpus export` writes for those entries, and the whole corpus is its files byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from ..model.corpus import Corpus
from . import export
from .escape import js_data

# (id, label, file name, media type): the order the list offers them in
FORMATS = [
    ("bibtex", "BibTeX", "papers.bib", "application/x-bibtex"),
    ("ris", "RIS", "papers.ris", "application/x-research-info-systems"),
    ("csv", "CSV", "corpus.csv", "text/csv"),
    ("csl-json", "CSL-JSON", "corpus.csl.json", "application/vnd.citationstyles.csl+json"),
]


def _csl_part(item: dict[str, Any]) -> str:
    """ITEM as it stands inside the indented array that to_csl_json writes."""
    text = json.dumps([item], indent=2, ensure_ascii=False)
    return text[2:-2]  # without "[\n" and "\n]"


def view_exports(corpus: Corpus) -> dict[str, dict[str, Any]]:
    """{format id: {id, label, file, type, head, sep, tail, keys, parts}}, entries in key
    order: a download is head + sep.join(the chosen entries' parts) + tail."""
    papers = export.papers(corpus)
    header = export.csv_header(corpus)
    axes = export.ris_axes(corpus)
    keys = [d["key"] for d in papers]
    made = {
        "bibtex": ("", "\n\n", "", [export.entry_bibtex(d) for d in papers]),
        "ris": ("", "\n", "", [export.ris_text([export.ris_entry(d, axes)]) for d in papers]),
        "csv": (export.csv_line(header), "", "", [export.csv_row(d, header, corpus)
                                                   for d in papers]),
        "csl-json": ("[\n", ",\n", "\n]\n", [_csl_part(export.csl_item(d)) for d in papers]),
    }  # fmt: skip
    return {
        f: {"id": f, "label": label, "file": name, "type": kind, "head": made[f][0],
            "sep": made[f][1], "tail": made[f][2], "keys": keys, "parts": made[f][3]}
        for f, label, name, kind in FORMATS
    }  # fmt: skip


def joined(data: dict[str, dict[str, Any]], fmt: str, keys: list[str]) -> str:
    """What the list downloads in FMT for KEYS (the page's own joining, for tests and tools)."""
    f = data[fmt]
    chosen = set(keys)
    parts = [p for k, p in zip(f["keys"], f["parts"], strict=True) if k in chosen]
    return str(f["head"] + f["sep"].join(parts) + f["tail"])


def global_name(fmt: str) -> str:
    """The window property assets/exports/FMT.js sets."""
    return "LITCORPUS_EXPORT_" + fmt.replace("-", "_")


def scripts(corpus: Corpus) -> dict[str, bytes]:
    """assets/exports/<format>.js, one a format: a page loads only the one it is asked for."""
    return {
        f"assets/exports/{fmt}.js": js_data(global_name(fmt), data)
        for fmt, data in view_exports(corpus).items()
    }
