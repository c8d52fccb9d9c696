"""Computes the corpus statistics (pandas): headline counts, counts per axis and per family,
cross-tabs, coverage-gap tables, the scale gap, the year trend, the screening flow, claims,
agreement and the reader tables. Reads a loaded corpus; returns one JSON-ready dict (the
stats.json contract).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..model.corpus import Corpus
from ..model.query import describe, matches
from ..model.taxonomy import Axis
from ..model.views import GapTable, Views
from ..model.yamlio import MAX_INT
from .reader import reader_tables

if TYPE_CHECKING:
    from .result import Result


def headline(corpus: Corpus) -> dict[str, int]:
    """Retained, excluded and audited records of CORPUS (or of a release's view of it)."""
    views = corpus.taxonomy.views
    excluded = len(corpus.of(views.prisma["kind"])) if views.prisma else 0
    retained = len(corpus.records) - excluded
    return {"retained": retained, "excluded": excluded, "audited": retained + excluded}


def _fits(value: Any) -> bool:
    """Whether VALUE fits the tables: an integer above MAX_INT is out-of-range in check, and
    left out of the statistics that diff computes of a corpus with problems."""
    return not isinstance(value, int) or abs(value) <= MAX_INT


def _frame(corpus: Corpus, kind: str) -> pd.DataFrame:
    rows = [
        {"key": r.stem, **{k: v for k, v in r.data.items() if _fits(v)}} for r in corpus.of(kind)
    ]
    return pd.DataFrame(rows).set_index("key", drop=False) if rows else pd.DataFrame()


def _long(frame: pd.DataFrame, axis: Axis) -> pd.Series:
    """One row per (entry, value): multi-valued axes exploded, missing values dropped."""
    if frame.empty or axis.id not in frame:
        return pd.Series(dtype=object)
    col = frame[axis.id].dropna()
    col = col.explode().dropna() if axis.multi else col
    return col.astype(str)


def count_values(frame: pd.DataFrame, axis: Axis) -> dict[str, int]:
    counts = _long(frame, axis).value_counts()
    return {v.id: int(counts.get(v.id, 0)) for v in axis.values}


def _pairs(frame: pd.DataFrame, rows: Axis, cols: Axis) -> pd.DataFrame:
    """(key, r, c) for every combination of an entry's row and column values."""
    left = _long(frame, rows).rename("r").rename_axis("key").reset_index()
    right = _long(frame, cols).rename("c").rename_axis("key").reset_index()
    return left.merge(right, on="key")


def crosstab(frame: pd.DataFrame, rows: Axis, cols: Axis) -> pd.DataFrame:
    pairs = _pairs(frame, rows, cols)
    table = pd.crosstab(pairs["r"], pairs["c"]) if not pairs.empty else pd.DataFrame()
    return (
        table.reindex(
            index=[v.id for v in rows.values], columns=[v.id for v in cols.values], fill_value=0
        )
        .fillna(0)
        .astype(int)
    )


def gap_table(frame: pd.DataFrame, gap: GapTable, rows: Axis, cols: Axis) -> dict[str, Any]:
    """Every cell of a gap table with its entries and state."""
    if not frame.empty:
        keep = [matches(rec, gap.where) for rec in frame.to_dict("records")]
        frame = frame[keep]
    pairs = _pairs(frame, rows, cols)
    keys: dict[tuple[str, str], list[str]] = {}
    for (r, c), group in pairs.groupby(["r", "c"]) if not pairs.empty else []:
        keys[(r, c)] = sorted(group["key"])
    row_ids = [v.id for v in rows.values if v.id not in gap.omit and not v.retired]
    col_ids = [v.id for v in cols.values if v.id not in gap.omit and not v.retired]
    cells = []
    for r in row_ids:
        for c in col_ids:
            entries = keys.get((r, c), [])
            reason = gap.expected_empty.get((r, c))
            if reason is not None:
                state = "unexpected" if entries else "expected_empty"
            elif not entries:
                state = "empty"
            else:
                state = "sparse" if len(entries) <= gap.sparse_at else "filled"
            cell = {"row": r, "col": c, "count": len(entries), "keys": entries, "state": state}
            if reason is not None:
                cell["reason"] = reason
            cells.append(cell)
    states = ("filled", "sparse", "empty", "expected_empty", "unexpected")
    return {
        "id": gap.id,
        "label": gap.label,
        "rows_axis": rows.id,
        "cols_axis": cols.id,
        "rows": row_ids,
        "cols": col_ids,
        "sparse_at": gap.sparse_at,
        "where": describe(gap.where),
        "entries": len(frame),
        "summary": {s: sum(c["state"] == s for c in cells) for s in states},
        "cells": cells,
    }


def scale_gap(frame: pd.DataFrame, views: Views) -> dict[str, Any]:
    regimes = []
    records = frame.to_dict("records") if not frame.empty else []
    for regime in views.regimes:
        members = [d for d in records if matches(d, regime.where)]
        reported: dict[str, list[dict[str, Any]]] = {}
        for name in views.scale_fields:
            values = [
                {"key": d["key"], "value": int(d[name])}
                for d in members
                if isinstance(d.get(name), int | float) and not pd.isna(d[name])
            ]
            reported[name] = sorted(values, key=lambda v: (-v["value"], v["key"]))
        silent = [
            d["key"]
            for d in members
            if not any(any(v["key"] == d["key"] for v in vals) for vals in reported.values())
        ]
        summary = {}
        for name, vals in reported.items():
            nums = pd.Series([v["value"] for v in vals], dtype=float)
            summary[name] = {
                "reporting": len(vals),
                "median": None if nums.empty else float(nums.median()),
                "max": None if nums.empty else int(nums.max()),
            }
        regimes.append(
            {
                "id": regime.id,
                "label": regime.label,
                "where": describe(regime.where),
                "entries": len(members),
                "not_reporting": len(silent),
                "summary": summary,
                "values": reported,
            }
        )
    return {"fields": views.scale_fields, "regimes": regimes}


def compute_stats(result: Result) -> dict[str, Any]:
    """Everything stats.json holds, from a result whose claims, flow and agreement are
    already computed."""
    corpus = result.corpus
    tax = corpus.taxonomy
    views = tax.views
    frames = {kind: _frame(corpus, kind) for kind in tax.kinds}
    papers = frames.get("paper", pd.DataFrame())
    out: dict[str, Any] = {
        "version": result.version,
        "as_of": corpus.as_of_day.isoformat() if corpus.as_of_day else None,
        "corpus": {**headline(corpus), "hash": corpus.hash()},
        "releases": [
            {
                "version": r.version,
                "date": r.date.isoformat(),
                "title": r.title,
                "corpus": headline(corpus.at(r)),
            }
            for r in corpus.releases.items
            if corpus.as_of_day is None or r.date <= corpus.as_of_day
        ],
        "counts": {a.id: count_values(frames[a.applies_to], a) for a in tax.axes.values()},
        "families": {},
    }
    for a in tax.axes.values():
        if a.families:
            counts = out["counts"][a.id]
            out["families"][a.id] = {
                code: sum(n for v, n in counts.items() if a.by_id[v].family == code)
                for code in a.families
            }
    out["crosstabs"] = []
    for t in views.crosstabs:
        table = crosstab(papers, tax.axes[t.rows], tax.axes[t.cols])
        out["crosstabs"].append(
            {
                "id": t.id,
                "label": t.label,
                "rows_axis": t.rows,
                "cols_axis": t.cols,
                "rows": list(table.index),
                "cols": list(table.columns),
                "cells": table.to_numpy().tolist(),
            }
        )
    out["gaps"] = [gap_table(papers, g, tax.axes[g.rows], tax.axes[g.cols]) for g in views.gaps]
    out["scale"] = scale_gap(papers, views)
    if views.trend and not papers.empty:
        field, by = views.trend
        axis = tax.axes[by]
        years = pd.to_numeric(papers[field], errors="coerce")  # diff: a corpus with problems
        dated = years.notna() & (years % 1 == 0)
        table = pd.crosstab(years[dated].astype(int), papers[by][dated].astype(str))
        table = table.reindex(columns=[v.id for v in axis.values], fill_value=0)
        out["trend"] = {
            "field": field,
            "by": by,
            "rows": [int(y) for y in table.index],
            "cols": list(table.columns),
            "cells": table.to_numpy().tolist(),
        }
    out["claims"] = [r.to_dict() for r in result.claims]
    out["prisma"] = result.flow
    out["prisma_update"] = result.update
    out["searched"] = result.searched or []
    out |= result.reviews
    reader = reader_tables(corpus)
    if reader is not None:
        out["reader"] = reader
    return out
