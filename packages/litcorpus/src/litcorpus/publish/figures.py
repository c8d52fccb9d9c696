"""Figures for stats/figures, drawn only when their content changes.

`figure_specs` says what each figure shows: its drawing function and the plain data it reads
(counts, cells and labels already resolved from the taxonomy). `build_figures` turns specs into
{name: {ext: bytes}}, taking a figure from the cache (a folder of files named by the hash of
that data, the drawing code and matplotlib's version) when it is there and drawing it
otherwise. The drawings are plots.py's, flowplots.py's and concepts.py's.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.taxonomy import Taxonomy
from . import plots
from .flowplots import prisma_flow, prisma_update
from .plots import counts_grid, coverage, figure_files, gap_map, scale_gap, trend
from .presentation import value_names

if TYPE_CHECKING:
    from matplotlib.figure import Figure


CONCEPT_TITLES = {  # the concept figures, by the reader part each is drawn from
    "concept-topologies": "Orchestration topologies, with example entries",
    "concept-credit": "Credit units from token to team, with the entries at each",
    "concept-subdecisions": "Orchestration sub-decisions O1 to O5, with the survey's anchors",
}


def figure_titles(stats: dict[str, Any], tax: Taxonomy) -> dict[str, str]:
    """A readable title (and alt text) for every figure build_figures makes."""
    titles = {
        f"counts-{k}": f"Entries per value of each axis ({tax.kinds[k].label.lower()} records)"
        for k in tax.kinds
    }
    for gap in stats["gaps"]:
        titles[f"gap-{gap['id']}"] = f"Gap map: {gap['label']}"
        titles[f"coverage-{gap['id']}"] = f"Coverage: {gap['label']}"
    titles.update(
        {
            "trend": "Entries per year, by category",
            "prisma": "Screening flow",
            "prisma-update": "Screening flow since the previous release (PRISMA 2020 update)",
            "scale-gap": "Reported team scale, industrial against academic (log scale)",
            **CONCEPT_TITLES,
        }
    )
    return titles


@dataclass(frozen=True, slots=True)
class FigureSpec:
    """One figure: its file name, how it is drawn, and the plain data the drawing reads."""

    name: str
    draw: Callable[..., Figure]
    args: tuple[Any, ...]

    def key(self) -> str:
        """What the figure's bytes depend on: the data, the drawing code, matplotlib."""
        digest = hashlib.sha256()
        code = _code_version(self.draw.__module__)
        for part in (self.name, self.draw.__name__, code, _mpl_version()):
            digest.update(part.encode() + b"\0")
        digest.update(json.dumps(self.args, sort_keys=True, ensure_ascii=False).encode())
        return digest.hexdigest()[:32]


@cache
def _code_version(module: str) -> str:
    """The hash of the drawing code: the shared style (plots.py) and the drawing function's
    own module."""
    style = plots.__file__
    files = {Path(style), Path(getattr(sys.modules[module], "__file__", None) or style)}
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(files))).hexdigest()


@cache
def _mpl_version() -> str:
    from importlib import metadata  # 20 ms that the README, which draws nothing, need not pay

    return metadata.version("matplotlib")


def figure_specs(stats: dict[str, Any], tax: Taxonomy, reason_axis: str | None) -> list[FigureSpec]:
    """Every figure of stats/figures, with the data it shows."""
    specs = []
    for kind in tax.kinds:
        axes = tax.axes_for(kind)
        if axes:
            panels = [
                [a.label, [list(p) for p in zip(value_names(tax, a.id, list(stats["counts"][a.id])),
                                                stats["counts"][a.id].values(), strict=True)]]
                for a in axes
            ]  # fmt: skip
            specs.append(FigureSpec(f"counts-{kind}", counts_grid, (panels,)))
    for gap in stats["gaps"]:
        labels = {
            "rows": value_names(tax, gap["rows_axis"], gap["rows"]),
            "cols": value_names(tax, gap["cols_axis"], gap["cols"]),
            "cols_axis": tax.axes[gap["cols_axis"]].label,
        }
        specs.append(FigureSpec(f"gap-{gap['id']}", gap_map, (gap, labels)))
        specs.append(FigureSpec(f"coverage-{gap['id']}", coverage, (gap, labels)))
    if "trend" in stats:
        t = stats["trend"]
        labels = {"cols": value_names(tax, t["by"], t["cols"]), "by": tax.axes[t["by"]].label}
        specs.append(FigureSpec("trend", trend, (t, labels)))
    if stats["prisma"] and reason_axis:
        reasons = dict(zip(tax.axes[reason_axis].by_id,
                           value_names(tax, reason_axis, list(tax.axes[reason_axis].by_id)),
                           strict=True))  # fmt: skip
        specs.append(FigureSpec("prisma", prisma_flow, (stats["prisma"], reasons)))
        if stats.get("prisma_update"):
            update = stats["prisma_update"]
            specs.append(FigureSpec("prisma-update", prisma_update, (update, reasons)))
    if stats["scale"]["regimes"] and stats["scale"]["fields"]:
        specs.append(FigureSpec("scale-gap", scale_gap, (stats["scale"],)))
    if stats.get("reader"):
        specs += concept_specs(stats["reader"], tax)
    return specs


def concept_specs(reader: dict[str, Any], tax: Taxonomy) -> list[FigureSpec]:
    """The concept figures, from the reader part of stats.json."""
    from . import concepts

    names = reader["names"]
    specs = []
    if "topologies" in reader:
        t = reader["topologies"]
        axis = tax.axes[t["axis"]]
        rows = [
            {
                "label": axis.by_id[r["value"]].label,
                "description": axis.by_id[r["value"]].description,
                "shape": r["shape"],
                "count": r["count"],
                "examples": [names.get(k, k) for k in r["examples"]],
            }
            for r in t["rows"]
            if r["shape"]
        ]
        specs.append(FigureSpec("concept-topologies", concepts.topologies, (rows,)))
    if "credit" in reader:
        c = reader["credit"]
        axis = tax.axes[c["axis"]]
        rows = [
            {
                "label": axis.by_id[r["value"]].label,
                "description": axis.by_id[r["value"]].description,
                "count": r["count"],
                "estimated": r["estimated"],
            }
            for r in c["rows"]
        ]
        strict = c["rows"] and c["rows"][0]["estimated"] is not None
        specs.append(FigureSpec("concept-credit", concepts.credit_ladder, (rows, strict)))
    if "subdecisions" in reader:
        sub = reader["subdecisions"]
        axis = tax.axes[sub["axes"][0]]
        rows = [
            {
                "code": axis.code_of(r["value"]) or "",
                "label": axis.by_id[r["value"]].label,
                "learned": r["learned"],
                "designed": r["designed"],
                "anchors": [[names.get(a["key"], a["key"]), a["how"]] for a in r["anchors"]],
            }
            for r in sub["rows"]
        ]
        specs.append(FigureSpec("concept-subdecisions", concepts.subdecisions, (rows,)))
    return specs


FORMATS = ("svg", "png")


Figures = dict[str, dict[str, bytes]]  # name: {ext: bytes}
Index = dict[str, dict[str, Any]]  # name: {"key", "sha256": {ext: digest}}, as stats.json has it


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _previous(folder: Path | None) -> tuple[Path | None, Index]:
    """An earlier stats folder and the figure index its stats.json holds."""
    if folder is None:
        return None, {}
    try:
        index = json.loads((folder / "stats.json").read_text(encoding="utf-8")).get("figures")
    except (OSError, ValueError, AttributeError):
        return None, {}
    return folder, index if isinstance(index, dict) else {}


def _reuse(folder: Path, name: str, entry: Any, key: str) -> dict[str, bytes] | None:
    """The figure NAME of an earlier stats folder, when it shows the same data (KEY) and its
    files are as that build wrote them."""
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    try:
        files = {ext: (folder / "figures" / f"{name}.{ext}").read_bytes() for ext in FORMATS}
    except OSError:
        return None
    sums = entry.get("sha256") or {}
    return files if all(sums.get(ext) == _digest(data) for ext, data in files.items()) else None


def build_figures(
    specs: list[FigureSpec], cache: Path | None, previous: Path | None = None
) -> tuple[Figures, Index]:
    """Each figure's files and the index stats.json keeps of them. A figure comes from the
    earlier stats folder PREVIOUS, or else from CACHE, when its key is there (the same data,
    drawing code and matplotlib), and is drawn otherwise (then kept in CACHE)."""
    folder, earlier = _previous(previous)
    out: Figures = {}
    index: Index = {}
    for spec in sorted(specs, key=lambda s: s.name):
        key = spec.key()
        files = _reuse(folder, spec.name, earlier.get(spec.name), key) if folder else None
        if files is None and cache:
            try:
                files = {ext: (cache / f"{key}.{ext}").read_bytes() for ext in FORMATS}
            except OSError:
                files = None
        if files is None:
            files = figure_files(spec.draw(*spec.args))
            if cache:
                _keep(cache, key, files)
        out[spec.name] = files
        index[spec.name] = {"key": key, "sha256": {e: _digest(d) for e, d in files.items()}}
    return out, index


def _keep(cache: Path, key: str, files: dict[str, bytes]) -> None:
    """Store a drawn figure; a cache that cannot be written only costs time."""
    from surewrite.files import write_file

    try:
        cache.mkdir(parents=True, exist_ok=True)
        for ext, data in files.items():
            write_file(cache / f"{key}.{ext}", data)
    except Exception:
        pass
