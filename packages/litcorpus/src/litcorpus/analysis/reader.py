"""The reader tables and concept figures' data, computed from the entries as the taxonomy's
stats.reader declares them: a topology cheat sheet, reward families with their typical credit
unit, what each benchmark measures and whether it is multi-agent-native, the sparsity signals,
the credit ladder and the orchestration sub-decisions with the survey figure's anchors.

Plain Python over the records (no pandas); returns the JSON-ready `reader` part of stats.json.
Entries are named by key; `names` maps each key used to its short name.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..model.corpus import Corpus
from ..model.naming import short_name
from ..model.query import matches
from ..model.taxonomy import Axis
from ..model.views import Reader

Data = dict[str, Any]


def _values(data: Data, axis: str) -> list[str]:
    raw = data.get(axis)
    return [str(v) for v in raw] if isinstance(raw, list) else [] if raw is None else [str(raw)]


def _first(data: Data, axis: str | None) -> str | None:
    vals = _values(data, axis) if axis else []
    return vals[0] if vals else None


def _current(axis: Axis) -> list[str]:
    """The values a reader table lists: current ones, without 'not applicable'."""
    return [v for v in axis.current_ids if v != "NA"]


def reader_tables(corpus: Corpus) -> dict[str, Any] | None:
    """The `reader` part of stats.json, or None when the taxonomy declares none."""
    tax = corpus.taxonomy
    spec = tax.views.reader
    if spec is None:
        return None
    papers = [r.data for r in corpus.of("paper")]
    used: set[str] = set()

    def examples(members: list[Data]) -> list[str]:
        """Up to spec.examples keys: preferred entries first, then the newest, then by key."""
        ranked = sorted(
            members,
            key=lambda d: (not matches(d, spec.prefer), -int(d.get("year") or 0), d["key"]),
        )
        keys = [d["key"] for d in ranked[: spec.examples]]
        used.update(keys)
        return keys

    def having(axis: str, value: str, among: list[Data] = papers) -> list[Data]:
        return [d for d in among if value in _values(d, axis)]

    out: dict[str, Any] = {}
    if spec.topologies:
        axis = tax.axes[spec.topologies]
        out["topologies"] = {
            "axis": axis.id,
            "rows": [
                {
                    "value": v,
                    "shape": spec.shapes.get(v),
                    "count": len(members := having(axis.id, v)),
                    "examples": examples(members),
                }
                for v in _current(axis)
            ],
        }
    if spec.families:
        credit = tax.axes.get(spec.family_credit or "")
        out["families"] = _families(tax.axes[spec.families], credit, papers, examples)
    if spec.benchmarks is not None:
        out["benchmarks"] = _benchmarks(corpus, spec, papers)
        used.update(row["key"] for row in out["benchmarks"]["rows"])
    if spec.sparsity:
        out["sparsity"] = [_sparsity(tax.axes[a], papers, spec.sparsity_top) for a in spec.sparsity]
    if spec.credit:
        axis = tax.axes[spec.credit]
        strict, value = spec.credit_strictness, spec.strict_value
        out["credit"] = {
            "axis": axis.id,
            "strictness": strict,
            "rows": [
                {
                    "value": v,
                    "count": len(members := having(axis.id, v)),
                    "estimated": len(having(strict, value, members)) if strict and value else None,
                }
                for v in _current(axis)
            ],
        }
    if spec.subdecisions:
        out["subdecisions"] = _subdecisions(corpus, spec, papers, used)
    out["names"] = {d["key"]: short_name(d) for d in papers if d["key"] in used}
    return out


def _families(
    axis: Axis, credit_axis: Axis | None, papers: list[Data], examples: Any
) -> dict[str, Any]:
    """Each family: its entries, its commonest credit unit (all of them on a tie) and how many
    of the family's entries carry it."""
    rows = []
    for code, label in axis.families.items():
        values = [v.id for v in axis.values if v.family == code and not v.retired]
        members = [d for d in papers if set(_values(d, axis.id)) & set(values)]
        credit = Counter(
            c for d in members for c in _values(d, credit_axis.id if credit_axis else "")
        )
        credit.pop("NA", None)
        top = max(credit.values(), default=0)
        order = credit_axis.current_ids if credit_axis else []
        rows.append(
            {
                "code": code,
                "label": label,
                "values": values,
                "count": len(members),
                "typical": [c for c in order if top and credit[c] == top],
                "typical_count": top,
                "examples": examples(members),
            }
        )
    return {"axis": axis.id, "credit_axis": credit_axis.id if credit_axis else None, "rows": rows}


def _benchmarks(corpus: Corpus, spec: Reader, papers: list[Data]) -> dict[str, Any]:
    """One row per benchmark: its group, whether it is multi-agent-native, what it scores in
    full and in part; ordered by group, then native before not, then key."""
    tax = corpus.taxonomy
    members = [d for d in papers if matches(d, spec.benchmarks or {})]

    def order(axis: str | None, data: Data) -> int:
        value = _first(data, axis)
        found = tax.axes[axis].by_id.get(value) if axis and value else None
        return found.order if found else 1_000

    rows = []
    for d in sorted(
        members,
        key=lambda d: (order(spec.bench_group, d), order(spec.bench_multiagent, d), d["key"]),
    ):
        row = {
            "key": d["key"],
            "group": _first(d, spec.bench_group),
            "multiagent": _first(d, spec.bench_multiagent),
            "measures": [_values(d, a) for a in spec.bench_measures],
        }
        rows.append(row)
    return {
        "group_axis": spec.bench_group,
        "multiagent_axis": spec.bench_multiagent,
        "measures_axes": spec.bench_measures,
        "rows": rows,
    }


def _sparsity(axis: Axis, papers: list[Data], top: int) -> dict[str, Any]:
    """The TOP commonest values of AXIS, the rarest used ones, and those no entry uses."""
    counts = Counter(v for d in papers for v in _values(d, axis.id))
    ranked = sorted(
        ((v, counts[v]) for v in _current(axis) if counts[v]),
        key=lambda p: (-p[1], axis.by_id[p[0]].order),
    )
    common = ranked[:top]
    rest = ranked[top:]
    low = min((n for _, n in rest), default=None)
    return {
        "axis": axis.id,
        "common": [list(p) for p in common],
        "rare": [list(p) for p in rest if p[1] == low],
        "unused": [v for v in _current(axis) if not counts[v]],
    }


def _subdecisions(
    corpus: Corpus, spec: Reader, papers: list[Data], used: set[str]
) -> dict[str, Any]:
    """Each sub-decision: how many entries learn it and design it, and the entries whose tag
    comes from the survey figure (its anchors), each marked learned or designed."""
    tax = corpus.taxonomy
    learned_axis = spec.subdecisions[0]
    designed_axis = spec.subdecisions[1] if len(spec.subdecisions) > 1 else None
    rows = []
    for v in _current(tax.axes[learned_axis]):
        learned = [d for d in papers if v in _values(d, learned_axis)]
        designed = [d for d in papers if designed_axis and v in _values(d, designed_axis)]
        anchors = []
        for how, members in (("learned", learned), ("designed", designed)):
            for d in members:
                item = (d.get(spec.evidence or "") or {}).get(v)
                if spec.anchor and isinstance(item, dict) and item.get("source") == spec.anchor:
                    anchors.append({"key": d["key"], "how": how})
        anchors.sort(key=lambda a: a["key"])
        used.update(a["key"] for a in anchors)
        rows.append(
            {"value": v, "learned": len(learned), "designed": len(designed), "anchors": anchors}
        )
    return {"axes": spec.subdecisions, "anchor": spec.anchor, "rows": rows}
