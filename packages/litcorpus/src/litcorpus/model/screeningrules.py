"""Reads the `screening:` section of taxonomy.yaml: the inclusion rules a reviewer applies,
the words the screen highlights, the stopping heuristic's threshold, and what an exclusion
decision writes (its record kind, the axes it fills and their default values)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .taxonomy import Taxonomy
from .yamlio import FieldPath


@dataclass(slots=True)
class Screening:
    """taxonomy.yaml's screening section: the inclusion rules, the highlighted words and the
    stopping heuristic's threshold."""

    criteria: list[tuple[str, str]] = field(default_factory=list)
    highlight: list[str] = field(default_factory=list)
    consecutive_irrelevant: int = 50
    # what an exclusion decision writes (screening.decisions)
    kind: str = ""
    axes: dict[str, str] = field(default_factory=dict)  # ROLES: the axis each names
    default_stage: str = ""
    source_by_scheme: dict[str, str] = field(default_factory=dict)
    source_by_host: dict[str, str] = field(default_factory=dict)
    source_otherwise: str = ""


def load_screening(top: dict[str, Any], bad: Any, tax: Taxonomy) -> Screening:
    raw = top.get("screening")
    out = Screening()
    if raw is None:
        return out
    if not isinstance(raw, dict):
        bad(("screening",), "screening must be a mapping of criteria, highlight and stopping")
        return out
    for i, c in enumerate(raw.get("criteria") or []):
        if isinstance(c, dict) and isinstance(c.get("id"), str) and isinstance(c.get("text"), str):
            out.criteria.append((c["id"], c["text"]))
        else:
            bad(("screening", "criteria", i), "a criterion is {id, text}")
    words = raw.get("highlight") or []
    if isinstance(words, list) and all(isinstance(w, str) and w.strip() for w in words):
        out.highlight = [w.strip() for w in words]
    else:
        bad(("screening", "highlight"), "highlight lists words (text)")
    stopping = raw.get("stopping") or {}
    n = stopping.get("consecutive_irrelevant", 50) if isinstance(stopping, dict) else None
    if isinstance(n, int) and not isinstance(n, bool) and n > 0:
        out.consecutive_irrelevant = n
    else:
        bad(("screening", "stopping"), "stopping.consecutive_irrelevant is a whole number above 0")
    _decisions(raw.get("decisions"), out, tax, bad)
    return out


# The axes an exclusion decision fills: its coded reason, its stage, the query family of its
# search, and where the record was found.
ROLES = ("reason_axis", "stage_axis", "family_axis", "source_axis")


def _decisions(raw: Any, out: Screening, tax: Taxonomy, bad: Any) -> None:
    """screening.decisions: the exclusion kind, its axes, and the values they default to."""
    if raw is None:
        return
    path: FieldPath = ("screening", "decisions")
    if not isinstance(raw, dict) or raw.get("kind") not in tax.kinds:
        bad(path, "decisions names the record kind an exclusion writes (kind: exclusion)")
        return
    out.kind = str(raw["kind"])
    axes: dict[str, Any] = raw["axes"] if isinstance(raw.get("axes"), dict) else {}
    for role in ROLES:
        axis = tax.axes.get(str(axes.get(role)))
        if axis is None or axis.applies_to != out.kind:
            bad((*path, "axes", role), f"decisions.axes.{role} names no axis of {out.kind} records")
            return
        out.axes[role] = axis.id

    def value(role: str, v: Any, where: FieldPath) -> str:
        ids = [x.id for x in tax.axes[out.axes[role]].values]
        if v not in ids:
            bad(where, f"'{v}' is not a value of {out.axes[role]}", ", ".join(ids))
            return ""
        return str(v)

    out.default_stage = value("stage_axis", raw.get("default_stage"), (*path, "default_stage"))
    for key, target in (
        ("source_by_scheme", out.source_by_scheme),
        ("source_by_host", out.source_by_host),
    ):
        for k, v in (raw.get(key) or {}).items():
            target[str(k)] = value("source_axis", v, (*path, key, k))
    otherwise = raw.get("source_otherwise")
    out.source_otherwise = value("source_axis", otherwise, (*path, "source_otherwise"))
