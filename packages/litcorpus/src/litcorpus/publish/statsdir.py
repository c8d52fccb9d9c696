"""Writes stats/: stats.json, README.md, tables/ (CSV, LaTeX, Markdown, and index.csv: each
table's id, title, files, hash and citation, since a CSV file holds only its table), figures/
(SVG, PNG), exports/ (BibTeX, CSL-JSON, CSV, JSON) and the PRISMA2020 template, all
deterministic; `--check` compares instead of writing.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from surewrite.tree import stale, write_tree

from ..analysis.result import Result
from ..progress import Progress
from . import outputs
from .citable import render
from .export import EXPORTERS
from .figures import build_figures, figure_specs
from .prisma2020 import prisma2020_csv
from .tables import build_tables
from .templating import environment

EXPORT_FILES = {
    "bibtex": "papers.bib",
    "csl-json": "corpus.csl.json",
    "csv": "corpus.csv",
    "json": "corpus.json",
}


def build_stats_files(
    result: Result, figure_cache: Path | None = None, previous: Path | None = None
) -> dict[str, bytes]:
    """Every file of stats/ as {relative path: bytes}, from a result with statistics; a figure
    whose content is unchanged comes from the earlier stats folder PREVIOUS or FIGURE_CACHE
    (see figures). Adds the index of tables and figures to result.stats, as stats.json holds
    it."""
    corpus, stats = result.corpus, result.stats
    if stats is None:
        raise ValueError("the result holds no statistics (is the corpus valid?)")
    tax = corpus.taxonomy
    views = tax.views
    version = stats["version"]
    files: dict[str, bytes] = {}
    tables = build_tables(stats, tax)
    index = []
    markdown = {}
    for table in tables:
        rendered = render(table, version)
        for ext, text in rendered.items():
            files[f"tables/{table.id}.{ext}"] = text.encode()
        markdown[table.id] = rendered["md"]
        index.append(
            {
                "id": table.id,
                "title": table.title,
                "sha256": table.sha256,
                "citation": table.provenance,
                "files": [f"tables/{table.id}.{ext}" for ext in ("csv", "tex", "md")],
            }
        )
    files["tables/index.csv"] = _table_index(index).encode()
    reason_axis = views.prisma.get("reason_axis") if views.prisma else None
    figures, figure_index = build_figures(
        figure_specs(stats, tax, reason_axis), figure_cache, previous
    )
    for name, formats in figures.items():
        for ext, data in formats.items():
            files[f"figures/{name}.{ext}"] = data
    if stats["prisma"] and reason_axis:
        labels = {v.id: v.label for v in tax.axes[reason_axis].values}
        template = prisma2020_csv(stats["prisma"], labels, stats.get("prisma_update"))
        if template is not None:
            files["prisma2020.csv"] = template.encode()
    for fmt, name in EXPORT_FILES.items():
        files[f"exports/{name}"] = EXPORTERS[fmt](corpus).encode()
    stats["tables"] = index
    stats["figures"] = figure_index
    files["stats.json"] = (json.dumps(stats, indent=2, ensure_ascii=False) + "\n").encode()
    readme = (
        environment()
        .get_template("stats_readme.md.j2")
        .render(stats=stats, tables=markdown, tax=tax)
    )
    files["README.md"] = readme.encode()
    return files


def _table_index(index: list[dict[str, Any]]) -> str:
    """tables/index.csv: one row per table, to cite a CSV file by (its header is its own)."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["id", "title", "csv", "tex", "md", "sha256", "citation"])
    for t in index:
        files = t["files"]
        out.writerow([t["id"], t["title"], *files, t["sha256"], t["citation"]])
    return buf.getvalue()


def stats_files(result: Result) -> dict[str, bytes]:
    """build_stats_files with the corpus's figure cache and its committed stats/ (a figure
    that shows the same data is taken from there)."""
    root = result.corpus.root
    return build_stats_files(result, outputs.cache_dir(root, "figures"), root / "stats")


def write_stats(
    result: Result,
    out: Path,
    progress: Progress | None = None,
    files: dict[str, bytes] | None = None,
) -> int:
    """Write stats/ (FILES, when the caller built them already); returns how many files
    changed."""
    corpus = result.corpus
    _, written = write_tree(
        out,
        stats_files(result) if files is None else files,
        outputs.TOOL,
        "stats",
        outputs.keep(corpus),
        outputs.input_folders(corpus),
        progress,
    )
    return written


def stale_stats(result: Result, out: Path) -> list[str]:
    """Files of OUT that `write_stats` would change."""
    return stale(out, stats_files(result), outputs.TOOL, "stats")
