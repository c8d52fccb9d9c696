"""Builds the static site (jinja2): the faceted list (paged, with its entry records; see
listing) and its search (see search), per-paper pages, taxonomy, statistics, gap map (each
cell linked to the list filtered to it), claims, screening, changes and trace-schema pages;
downloads come from stats/exports.

Reads the validated corpus, its stats and traces/trace.schema.json; returns every file as
bytes so the site is written at once (atomic) and byte-for-byte reproducibly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from orchtrace.schemadoc import schema_rows

from ..analysis.result import Result
from ..progress import Progress
from . import statsdir
from .export import entry_bibtex
from .listing import Listing
from .plots import figure_titles
from .presentation import entry_view, shared_codes, value_name, where_query, where_text
from .search import search_index
from .tables import build_tables
from .templating import environment

T = TypeVar("T")

PAGES = [
    ("index.html", "Papers"),
    ("taxonomy.html", "Taxonomy"),
    ("gaps.html", "Gap map"),
    ("stats.html", "Statistics"),
    ("claims.html", "Claims"),
    ("screening.html", "Screening"),
    ("changes.html", "Changes"),
    ("traces.html", "Traces"),
]
SCHEMA = "traces/trace.schema.json"
MAX_RELATED = 12  # entries named per shared gap cell on a paper page
MAX_LISTED = 100  # entries named per value on the taxonomy page and per gap-map cell


def _static() -> dict[str, bytes]:
    folder = resources.files("litcorpus.publish") / "static"
    return {
        f"assets/{f.name}": f.read_bytes()
        for f in sorted(folder.iterdir(), key=lambda f: f.name)
        if f.is_file()
    }


def build_site(result: Result) -> dict[str, bytes]:
    """Every file of the site as {relative path: bytes}."""
    return dict(site_files(result))


def site_files(
    result: Result,
    progress: Progress | None = None,
    stats_files: dict[str, bytes] | None = None,
) -> Iterator[tuple[str, bytes]]:
    """Every file of the site as (relative path, bytes), each page as soon as it is made.
    STATS_FILES: the files of stats/, when the caller built them already."""
    corpus = result.corpus
    tax = corpus.taxonomy
    if stats_files is None:
        stats_files = statsdir.stats_files(result)
    stats = result.stats
    assert stats is not None  # stats_files raised already otherwise
    records = sorted(corpus.of("paper"), key=lambda r: (-int(r.data.get("year", 0)), r.stem))
    latest = corpus.releases.latest()
    entries = [entry_view(r.data, tax, latest) for r in records]
    by_key = {e["key"]: e for e in entries}
    related: dict[str, list[dict[str, Any]]] = {e["key"]: [] for e in entries}
    for gap in stats["gaps"]:
        for cell in gap["cells"]:
            in_cell = cell["keys"]
            for key in in_cell:
                # the first few others only: a large cell would make every page quadratic
                others = [k for k in in_cell[: MAX_RELATED + 1] if k != key][:MAX_RELATED]
                if others:
                    more = len(in_cell) - 1 - len(others)
                    related[key].append({"gap": gap, "cell": cell, "keys": others, "more": more})
    exclusions = sorted((r.data for r in corpus.of("exclusion")), key=lambda d: str(d["id"]))
    schema_path = corpus.root / SCHEMA
    schema = json.loads(schema_path.read_text(encoding="utf-8")) if schema_path.is_file() else {}
    env = environment()
    common = {
        "tax": tax,
        "stats": stats,
        "pages": PAGES,
        "by_key": by_key,
        "version": stats["version"],
        "corpus_hash": stats["corpus"]["hash"],
        "value_name": lambda axis, value: value_name(tax, axis, value),
        "where_text": lambda where: where_text(tax, where),
        "where_query": where_query,
        "list_query": urlencode,
        "shared_codes": lambda axis: shared_codes(tax.axes[axis]),
        "gap_views": {g.id: g for g in tax.views.gaps},
    }

    def page(
        path: str, template: str, current: str | None = None, **context: Any
    ) -> tuple[str, bytes]:
        depth = path.count("/")
        html = env.get_template(template).render(
            **common, **context, base="../" * depth, current=current or path
        )
        return path, html.encode()

    listing = Listing(tax, entries)
    for n, context in enumerate(listing.pages(entries), start=1):
        if n == 1:
            yield page("index.html", "index.html.j2", facets=listing.facets(), **context)
        else:
            yield page(f"list/{n}.html", "list.html.j2", "index.html", **context)
    releases = [[r.version, r.date.isoformat()] for r in corpus.releases.items]
    yield "assets/entries.js", listing.script(entries, releases)
    for done, e in enumerate(entries, start=1):
        if progress:
            progress("writing pages", done, len(entries))
        src = (corpus.root / "papers" / f"{e['key']}.yaml").read_bytes()
        yield f"src/papers/{e['key']}.yaml", src
        yield page(
            f"papers/{e['key']}.html",
            "paper.html.j2",
            e=e,
            bibtex=entry_bibtex(e["data"]),
            related=related[e["key"]],
        )
    members: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in sorted(entries, key=lambda e: str(e["title"]).lower()):
        for t in e["tags"]:
            members.setdefault((t.axis, t.value), []).append(e)
    yield page("taxonomy.html", "taxonomy.html.j2", members=members, listed=MAX_LISTED)
    yield page(
        "stats.html",
        "stats.html.j2",
        tables=build_tables(stats, tax),
        figure_titles=figure_titles(stats, tax),
    )
    yield page("gaps.html", "gaps.html.j2", listed=MAX_LISTED)
    yield page("claims.html", "claims.html.j2")
    yield page("screening.html", "screening.html.j2", exclusions=exclusions)
    added = [e for e in entries if e["new"]]
    history = list(reversed(corpus.releases.items))
    yield page("changes.html", "changes.html.j2", releases=history, added=added, latest=latest)
    yield page("traces.html", "traces.html.j2", schema=schema, rows=schema_rows(schema))
    for rel, data in stats_files.items():
        yield f"stats/{rel}", data
    if schema:
        yield SCHEMA, schema_path.read_bytes()
    yield "assets/search-index.js", search_index(entries)
    yield from _static().items()


def write_site(
    result: Result,
    out: Path,
    progress: Progress | None = None,
    stats_files: dict[str, bytes] | None = None,
) -> tuple[int, int]:
    """Build and write the site; returns (files in the site, files actually rewritten)."""
    from safewrite.tree import write_tree

    from . import outputs

    corpus = result.corpus
    return write_tree(
        out,
        site_files(result, progress, stats_files),
        outputs.TOOL,
        "site",
        outputs.keep(corpus),
        outputs.input_folders(corpus),
        progress,
    )
