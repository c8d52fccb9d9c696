"""Builds the static site (jinja2): the faceted list (paged, with its entry records; see
listing) and its ranked search (see search), per-paper pages (each tag with the evidence behind
it), taxonomy, statistics, gap map (each cell linked to the list filtered to it, and to the
claims that speak of it), claims, changes, an Atom feed and, for curators, the screening and
trace-schema pages; downloads come from stats/exports, MiniSearch from npm (see vendor).

Reads the validated corpus, its stats, CITATION.cff and traces/trace.schema.json; returns
every file as bytes so the site is written at once (atomic) and byte-for-byte reproducibly.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from ..analysis.result import Result
from ..model.corpus import Record
from ..model.errors import CommandError
from ..model.taxonomy import Taxonomy
from ..progress import Progress
from . import statsdir, viewexports
from .brand import brand_of
from .citation import citations, read_cff
from .claimview import claim_views, claims_by_cell
from .export import entry_bibtex
from .feed import atom_feed
from .figures import figure_titles
from .listing import Listing
from .presentation import (
    entry_view,
    first_release,
    shared_codes,
    tagged_by,
    value_name,
    where_query,
    where_text,
)
from .search import search_index
from .statspage import stats_sections
from .tables import build_tables, scope_notes
from .templating import environment
from .vendor import vendored

T = TypeVar("T")

PAGES = [  # the main menu, for readers
    ("index.html", "Papers"),
    ("gaps.html", "Gap map"),
    ("stats.html", "Statistics"),
    ("claims.html", "Claims"),
    ("taxonomy.html", "Taxonomy"),
    ("changes.html", "Changes"),
]
CURATOR_PAGES = [("screening.html", "Screening"), ("traces.html", "Trace schema")]
SCHEMA = "traces/trace.schema.json"
MAX_RELATED = 12  # entries named per shared gap cell on a paper page
SHADES = (5, 10, 20)  # a filled gap cell's shade steps up at these counts
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


SITE_URL = "LITCORPUS_SITE_URL"  # where the site is published, as the publishing job knows it
REPOSITORY_URL = "LITCORPUS_REPOSITORY_URL"  # the corpus's repository, likewise


def site_url(tax: Taxonomy) -> str | None:
    """The site's public address, ending in /: the environment's SITE_URL (set where the site
    is published), else the taxonomy's site.base_url; None when neither says."""
    raw = os.environ.get(SITE_URL, "").strip()
    if raw.startswith(("https://", "http://")):
        return raw if raw.endswith("/") else raw + "/"
    return tax.views.base_url


def repository_url(cff: dict[str, Any]) -> str | None:
    """The corpus's own repository, where readers file corrections: the environment's
    REPOSITORY_URL (the publishing job knows it), else CITATION.cff's repository-code."""
    raw = os.environ.get(REPOSITORY_URL, "").strip() or str(cff.get("repository-code") or "")
    return raw if raw.startswith("https://") else None


def evidence_of(e: dict[str, Any], tax: Taxonomy) -> dict[tuple[str, str], dict[str, str]]:
    """{(axis, value): the evidence item (quote, where, source)} of entry E's tags, from its
    record's evidence fields (taxonomy fields of type evidence, keyed by tagged value)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    data = e["data"]
    for spec in tax.kinds["paper"].fields.values():
        items = data.get(spec.id) if spec.type == "evidence" else None
        if not isinstance(items, dict):
            continue
        meanings = dict(spec.meanings)
        for t in e["tags"]:
            item = items.get(t.value)
            if t.axis in spec.axes and isinstance(item, dict):
                source = str(item.get("source", ""))
                out[(t.axis, t.value)] = {
                    "quote": str(item.get("quote", "")),
                    "where": str(item.get("where", "")),
                    "source": source.replace("_", " "),
                    "meaning": meanings.get(source, ""),
                }
    return out


def correction_url(repository: str | None, e: dict[str, Any], tag: Any) -> str | None:
    """A new issue on the corpus's GitHub repository, prefilled to correct one tag of entry E
    (None when the repository is not on GitHub): what the tag is now, and room for what it
    should be and the evidence."""
    if not repository or not repository.startswith("https://github.com/"):
        return None
    title = f"Tag correction: {e['key']}, {tag.text}"
    body = (
        f"Entry: {e['key']} ({e['title']})\nField: {tag.axis}\nNow: {tag.value}\n\n"
        "What it should be:\n\nEvidence (the address you read and the phrase the tag rests "
        "on):\n"
    )
    return f"{repository.rstrip('/')}/issues/new?{urlencode({'title': title, 'body': body})}"


def newest_first(records: list[Record]) -> list[Record]:
    """The list's default order: newest year first, within a year the latest first public day
    first (entries with a year alone after those with a day), then by key. Stable sorts, the
    last key first."""
    out = sorted(records, key=lambda r: r.stem)
    out.sort(key=lambda r: str(r.data.get("published") or ""), reverse=True)
    out.sort(key=lambda r: int(r.data.get("year", 0)), reverse=True)
    return out


def _by_tag(entries: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """{(axis, value): the ENTRIES that carry the tag, in their order}."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in entries:
        for t in e["tags"]:
            out.setdefault((t.axis, t.value), []).append(e)
    return out


def site_files(
    result: Result,
    progress: Progress | None = None,
    stats_files: dict[str, bytes] | None = None,
) -> Iterator[tuple[str, bytes]]:
    """Every file of the site as (relative path, bytes), each page as soon as it is made.
    STATS_FILES: the files of stats/, when the caller built them already."""
    corpus = result.corpus
    tax = corpus.taxonomy
    scripts = vendored(corpus.root)  # first: a missing script stops the build at once
    if stats_files is None:
        stats_files = statsdir.stats_files(result)
    stats = result.stats
    assert stats is not None  # stats_files raised already otherwise
    records = newest_first(corpus.of("paper"))
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
    rows = _schema_rows(schema) if schema else []  # a missing orchtrace stops the build here
    claims = claim_views(result.claims, tax, stats["gaps"])
    cff = read_cff(corpus.root)
    repository = repository_url(cff)
    brand = brand_of(tax, cff, corpus.root)
    # a page only for what the corpus declares: no gap table, no gap map; no claim, no claims
    absent = {"gaps.html": not stats["gaps"], "claims.html": not claims,
              "screening.html": not stats.get("prisma"), "traces.html": not schema}  # fmt: skip
    env = environment()
    common = {
        "tax": tax,
        "stats": stats,
        "brand": brand,
        "tagged_by": tagged_by(tax),
        "pages": [(p, label) for p, label in PAGES if not absent.get(p)],
        "curator_pages": [(p, label) for p, label in CURATOR_PAGES if not absent.get(p)],
        "by_key": by_key,
        "version": stats["version"],
        "corpus_hash": stats["corpus"]["hash"],
        "citations": citations(cff, corpus.releases.items, site_url(tax), brand.slug),
        "value_name": lambda axis, value: value_name(tax, axis, value),
        "where_text": lambda where: where_text(tax, where),
        "where_query": where_query,
        "list_query": urlencode,
        "shared_codes": lambda axis: shared_codes(tax.axes[axis]),
        "gap_views": {g.id: g for g in tax.views.gaps},
        "description": "",
    }

    def page(
        path: str, template: str, current: str | None = None, **context: Any
    ) -> tuple[str, bytes]:
        depth = path.count("/")
        html = env.get_template(template).render(
            **{**common, **context}, base="../" * depth, current=current or path
        )
        return path, html.encode()

    listing = Listing(tax, entries)
    for n, context in enumerate(listing.pages(entries), start=1):
        if n == 1:
            days = Counter(str(e["added"]) for e in entries if e["added"])
            yield page("index.html", "index.html.j2", facets=listing.facets(),
                       added_days=json.dumps(dict(sorted(days.items()))),
                       export_formats=[(f[0], f[1]) for f in viewexports.FORMATS],
                       **context)  # fmt: skip
        else:
            yield page(f"list/{n}.html", "list.html.j2", "index.html", **context)
    releases = [[r.version, r.date.isoformat()] for r in corpus.releases.items]
    held = [first_release(corpus.releases.items, e) for e in entries]
    yield "assets/entries.js", listing.script(entries, releases, held)
    yield from viewexports.scripts(corpus).items()
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
            evidence=evidence_of(e, tax),
            suggest=lambda t, e=e: correction_url(repository, e, t),
            description=f"{e['byline']}. {e['summary']}",
        )
    members = _by_tag(sorted(entries, key=lambda e: str(e["title"]).lower()))
    yield page("taxonomy.html", "taxonomy.html.j2", members=members, listed=MAX_LISTED)
    tables = build_tables(stats, tax)
    yield page(
        "stats.html",
        "stats.html.j2",
        sections=stats_sections(stats, tables, figure_titles(stats, tax)),
    )
    gaps = {g["id"]: g for g in stats["gaps"]}
    if not absent["gaps.html"]:
        notes = scope_notes(stats, tax)
        yield page("gaps.html", "gaps.html.j2", listed=MAX_LISTED, shades=SHADES,
                   claims_at=claims_by_cell(claims), scope_notes=notes)  # fmt: skip
    if not absent["claims.html"]:
        yield page("claims.html", "claims.html.j2", claims=claims, gaps=gaps)
    if not absent["screening.html"]:
        yield page("screening.html", "screening.html.j2", exclusions=exclusions)
    if not absent["traces.html"]:
        yield page("traces.html", "traces.html.j2", schema=schema, rows=rows)
    added = [e for e in entries if e["new"]]
    history = list(reversed(corpus.releases.items))
    excluded = {str(d["id"]): str(d.get("title", "")) for d in exclusions}
    yield page("changes.html", "changes.html.j2", releases=history, added=added, latest=latest,
               excluded=excluded)  # fmt: skip
    yield "feed.xml", atom_feed(entries, corpus.releases.items, brand, site_url(tax))
    for (axis, value), carrying in sorted(_by_tag(entries).items()):  # a feed to follow each filter
        what = next(t.text for t in carrying[0]["tags"] if (t.axis, t.value) == (axis, value))
        about = (f"{axis}/{value}.xml", what)
        yield f"feeds/{axis}/{value}.xml", atom_feed(carrying, [], brand, site_url(tax), about)
    for rel, data in stats_files.items():
        yield f"stats/{rel}", data
    if schema:
        yield SCHEMA, schema_path.read_bytes()
    yield "assets/search-index.js", search_index(entries)
    yield from scripts.items()
    yield from _static().items()


def write_site(
    result: Result,
    out: Path,
    progress: Progress | None = None,
    stats_files: dict[str, bytes] | None = None,
) -> tuple[int, int]:
    """Build and write the site; returns (files in the site, files actually rewritten)."""
    from surewrite.tree import write_tree

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


def _schema_rows(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The trace schema's fields as orchtrace documents them (the `traces` extra)."""
    try:
        from orchtrace.checks.schemadoc import schema_rows
    except ImportError as exc:
        raise CommandError(
            "site-dependency-missing",
            f"{SCHEMA} is documented on the site by orchtrace, which is not installed",
            "pip install 'litcorpus[traces]'",
        ) from exc
    return schema_rows(schema)
