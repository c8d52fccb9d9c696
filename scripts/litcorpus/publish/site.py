"""Builds the static site (jinja2): the faceted list (paged, with its entry records; see
listing), per-paper pages, taxonomy, statistics, gap map, claims, screening and trace-schema
pages; downloads come from stats/exports.

Reads the validated corpus, its stats and traces/trace.schema.json; returns every file as
bytes so the site is written at once (atomic) and byte-for-byte reproducibly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from orchtrace.schemadoc import schema_rows

from ..analysis.result import Result
from ..model.taxonomy import Taxonomy
from ..progress import Progress
from . import statsdir
from .export import entry_bibtex
from .listing import Listing
from .plots import figure_titles
from .tables import build_tables, render
from .templating import environment

T = TypeVar("T")

PAGES = [
    ("index.html", "Papers"),
    ("taxonomy.html", "Taxonomy"),
    ("gaps.html", "Gap map"),
    ("stats.html", "Statistics"),
    ("claims.html", "Claims"),
    ("screening.html", "Screening"),
    ("traces.html", "Traces"),
]
SCHEMA = "traces/trace.schema.json"
MAX_RELATED = 12  # entries named per shared gap cell on a paper page
MAX_LISTED = 100  # entries named per value on the taxonomy page and per gap-map cell


def safe_url(url: Any) -> str | None:
    """The URL if it is an http(s) address, else None (never rendered as a link)."""
    if not isinstance(url, str):
        return None
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


@dataclass(frozen=True, slots=True)
class Tag:
    axis: str
    axis_label: str
    value: str
    label: str
    code: str | None


def shared_labels(tax: Taxonomy) -> set[str]:
    """Value labels that more than one axis uses (Yes, No, Debate): chips name their axis."""
    seen: dict[str, set[str]] = {}
    for axis in tax.axes_for("paper"):
        for v in axis.values:
            seen.setdefault(v.label, set()).add(axis.id)
    return {label for label, axes in seen.items() if len(axes) > 1}


def tags_of(data: dict[str, Any], tax: Taxonomy, shared: set[str] | None = None) -> list[Tag]:
    """The entry's tags in axis order; SHARED (from shared_labels) can be passed in loops."""
    out = []
    shared = shared_labels(tax) if shared is None else shared
    for axis in tax.axes_for("paper"):
        raw = data.get(axis.id)
        for value in raw if isinstance(raw, list) else [] if raw is None else [raw]:
            v = axis.by_id.get(str(value))
            label = v.label if v else str(value)
            if label in shared:
                label = f"{axis.label}: {label}"
            out.append(Tag(axis.id, axis.label, str(value), label, axis.code_of(str(value))))
    return out


def links_of(data: dict[str, Any], tax: Taxonomy) -> list[tuple[str, str]]:
    """(label, href) for the paper's address and each identifier with a resolver."""
    links: list[tuple[str, str]] = []
    for url in [data.get("url"), *(data.get("extra_urls") or [])]:
        if safe_url(url):
            links.append(("Paper" if not links else "Also", str(safe_url(url))))
    for scheme, ident in (data.get("ids") or {}).items():
        spec = tax.id_schemes.get(scheme)
        href = safe_url(spec.url.format(id=ident)) if spec else None
        if href and href not in {h for _, h in links}:
            links.append((spec.label if spec else scheme, href))
    return links


def entry_view(data: dict[str, Any], tax: Taxonomy, shared: set[str]) -> dict[str, Any]:
    authors = [a for a in data.get("authors", []) if isinstance(a, str)]
    first = authors[0] if authors else ""
    tags = tags_of(data, tax, shared)
    facets: dict[str, list[str]] = {}
    for t in tags:
        facets.setdefault(t.axis, []).append(t.value)
    return {
        "key": data["key"],
        "title": data.get("title", ""),
        "url": safe_url(data.get("url")),
        "authors": authors,
        "first_author": first,
        "et_al": len(authors) > 1,
        "year": data.get("year"),
        "venue": data.get("venue", ""),
        "affiliation": data.get("affiliation", ""),
        "summary": data.get("summary", ""),
        "notes": data.get("notes", ""),
        "tags": tags,
        "links": links_of(data, tax),
        "facets": {a: " ".join(v) for a, v in facets.items()},
        "data": data,
    }


def grouped(tax: Taxonomy, items: list[tuple[dict[str, Any], T]]) -> list[tuple[str, list[T]]]:
    """Items in sections by the taxonomy's site.group_by axis, in value order; empty sections
    are dropped. ITEMS pairs each record's data with what goes into the section."""
    axis = tax.views.group_by
    if axis is None:
        return [("Entries", [item for _, item in items])] if items else []
    sections = [
        (v.label, [item for data, item in items if data.get(axis) == v.id])
        for v in tax.axes[axis].values
    ]
    return [(label, members) for label, members in sections if members]


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
    shared = shared_labels(tax)
    entries = [entry_view(r.data, tax, shared) for r in records]
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
    }

    def page(
        path: str, template: str, current: str | None = None, **context: Any
    ) -> tuple[str, bytes]:
        depth = path.count("/")
        html = env.get_template(template).render(
            **common, **context, base="../" * depth, current=current or path
        )
        return path, html.encode()

    listing = Listing(tax, entries, shared)
    for n, context in enumerate(listing.pages(entries), start=1):
        if n == 1:
            yield page("index.html", "index.html.j2", facet_axes=tax.axes_for("paper"), **context)
        else:
            yield page(f"list/{n}.html", "list.html.j2", "index.html", **context)
    yield "assets/entries.js", listing.script(entries)
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
    tables = build_tables(stats, tax)
    for t in tables:
        render(t, stats["version"])
    yield page(
        "stats.html", "stats.html.j2", tables=tables, figure_titles=figure_titles(stats, tax)
    )
    yield page("gaps.html", "gaps.html.j2", listed=MAX_LISTED)
    yield page("claims.html", "claims.html.j2")
    yield page("screening.html", "screening.html.j2", exclusions=exclusions)
    yield page("traces.html", "traces.html.j2", schema=schema, rows=schema_rows(schema))
    for rel, data in stats_files.items():
        yield f"stats/{rel}", data
    if schema:
        yield SCHEMA, schema_path.read_bytes()
    search = {
        e["key"]: " ".join(
            [str(e["title"]), *e["authors"], str(e["summary"]), str(e["notes"])]
        ).lower()
        for e in entries
    }
    yield (
        "assets/search-index.js",
        (
            "window.LITCORPUS_SEARCH = "
            + json.dumps(search, ensure_ascii=False, sort_keys=True)
            + ";\n"
        ).encode(),
    )
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
        outputs.record_folders(corpus),
        progress,
    )
