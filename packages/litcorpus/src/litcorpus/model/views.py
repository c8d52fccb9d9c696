"""Reads the `stats:` section of taxonomy.yaml: the cross-tabs, gap tables, scale regimes,
trend, screening flow and agreement file that `litcorpus stats` computes.

Declaring a table is an edit of taxonomy.yaml; `view_problems` checks every declaration
against the taxonomy so that `check` catches a misspelt axis before `stats` runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from .problems import Problem, did_you_mean
from .query import Where, filter_problems
from .screeningrules import Screening, load_screening
from .sections import Section
from .taxonomy import TAXONOMY_FILE, Taxonomy
from .yamlio import FieldPath


@dataclass(frozen=True, slots=True)
class Crosstab:
    id: str
    label: str
    rows: str
    cols: str


@dataclass(frozen=True, slots=True)
class GapTable:
    id: str
    label: str
    rows: str
    cols: str
    sparse_at: int
    where: Where = field(default_factory=dict)
    omit: tuple[str, ...] = ()
    expected_empty: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Regime:
    id: str
    label: str
    where: Where


SHAPES = ("star", "cycle", "mesh", "fan", "tree", "frame")  # the topology drawings


@dataclass(slots=True)
class Reader:
    """The reader tables and concept figures: which axes each one reads (None: not made)."""

    examples: int = 4  # example entries per row
    prefer: Where = field(default_factory=dict)  # examples matching this come first
    topologies: str | None = None
    shapes: dict[str, str] = field(default_factory=dict)  # topology value: drawing
    families: str | None = None  # an axis with families
    family_credit: str | None = None  # the axis whose commonest value is a family's typical one
    benchmarks: Where | None = None  # which entries the benchmark table lists
    bench_group: str | None = None
    bench_multiagent: str | None = None
    bench_measures: list[str] = field(default_factory=list)  # scored, then partly scored
    sparsity: list[str] = field(default_factory=list)
    sparsity_top: int = 3
    credit: str | None = None
    credit_strictness: str | None = None
    strict_value: str | None = None  # the strictness value that marks an explicit estimator
    subdecisions: list[str] = field(default_factory=list)  # learned, then designed
    evidence: str | None = None  # the evidence field that names each tag's source
    anchor: str | None = None  # the source that marks a survey-figure anchor


@dataclass(slots=True)
class Views:
    crosstabs: list[Crosstab] = field(default_factory=list)
    gaps: list[GapTable] = field(default_factory=list)
    scale_fields: list[str] = field(default_factory=list)
    regimes: list[Regime] = field(default_factory=list)
    trend: tuple[str, str] | None = None
    prisma: dict[str, str] = field(default_factory=dict)
    agreement: Review | None = None  # the second reader's tags (a blind one's too)
    blind_agreement: Review | None = None
    screening_audit: Review | None = None  # a blind second screening of decided records
    readme_tags: list[str] = field(default_factory=list)
    headline: list[str] = field(default_factory=list)  # what a card shows, the open facets
    group_by: str | None = None
    venues: list[str] = field(default_factory=list)  # the list's venue facet, by name
    base_url: str | None = None  # the site's public address (feed links, citations)
    # the corpus's own words (publish.brand fills what is not declared)
    name: str | None = None  # in every page's title, the header, the feeds, citation keys
    heading: str | None = None  # the list page's heading
    description: str | None = None  # the pages' description and the feed's subtitle
    reader: Reader | None = None
    screening: Screening = field(default_factory=lambda: Screening())


@dataclass(slots=True)
class Review:
    """A reviewer's file the statistics compare with the corpus, and how it was made."""

    file: str
    method: str = ""  # how the check was done, printed with its table
    seed: int = 0  # the screening audit's draw, which also keys its neutral ids
    skip_stages: list[str] = field(default_factory=list)  # stages the audit does not draw


def load_views(tax: Taxonomy) -> tuple[Views, list[Problem]]:
    """Parse and check the stats and site declarations of a loaded taxonomy."""
    r = Section(tax.doc, TAXONOMY_FILE, "taxonomy-invalid")
    top = r.data
    raw = top.get("stats")
    views, problems = Views(), r.problems
    bad = r.bad
    site: dict[str, Any] = top["site"] if isinstance(top.get("site"), dict) else {}
    for key in ("readme_tags", "headline"):
        for i, name in enumerate(site.get(key) or []):
            if name in tax.axes:
                getattr(views, key).append(name)
            else:
                bad(("site", key, i), f"{key} names unknown axis '{name}'")
    venues = site.get("venues") or []
    if isinstance(venues, list) and all(isinstance(v, str) and v.strip() for v in venues):
        views.venues = [v.strip() for v in venues]
    else:
        bad(("site", "venues"), "venues lists the names of venues, such as NeurIPS")
    base = site.get("base_url")
    if base is not None:
        if isinstance(base, str) and re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", base):
            views.base_url = base if base.endswith("/") else base + "/"
        else:
            bad(("site", "base_url"), "base_url is the site's public address, such as "
                "https://example.org/corpus/")  # fmt: skip
    for key in ("name", "heading", "description"):
        text = site.get(key)
        if isinstance(text, str) and text.strip() and "\n" not in text.strip():
            setattr(views, key, text.strip())
        elif text is not None:
            bad(("site", key), f"{key} is one line of text")
    group = site.get("group_by")
    if group is not None and group in tax.axes and not tax.axes[group].multi:
        views.group_by = group
    elif group is not None:
        bad(("site", "group_by"), f"group_by must name a single-valued axis, not '{group}'")
    views.screening = load_screening(top, bad, tax)
    if raw is None:
        return views, problems

    def axis(path: FieldPath, name: Any, kind: str = "paper") -> bool:
        names = [a.id for a in tax.axes_for(kind)]
        if name in names:
            return True
        guess = did_you_mean(str(name), names)
        bad(
            path,
            f"'{name}' is not an axis of {kind} records",
            f"did you mean '{guess}'?" if guess else None,
        )
        return False

    def items(key: str) -> list[tuple[FieldPath, dict[str, Any]]]:
        seq = raw.get(key) or []
        out: list[tuple[FieldPath, dict[str, Any]]] = []
        for i, item in enumerate(seq if isinstance(seq, list) else []):
            path: FieldPath = ("stats", key, i)
            if not (isinstance(item, dict) and "id" in item):
                bad(path, f"each {key} entry is a mapping with an id")
            elif r.safe_id((*path, "id"), item["id"], f"{key} id"):  # it names table files
                out.append((path, item))
        return out

    if not isinstance(raw, dict):
        bad(("stats",), "'stats' must be a mapping")
        return views, problems
    for path, t in items("crosstabs"):
        if axis((*path, "rows"), t.get("rows")) & axis((*path, "cols"), t.get("cols")):
            views.crosstabs.append(
                Crosstab(t["id"], str(t.get("label", t["id"])), t["rows"], t["cols"])
            )
    for path, g in items("gaps"):
        if not axis((*path, "rows"), g.get("rows")) & axis((*path, "cols"), g.get("cols")):
            continue
        where = g.get("where") or {}
        filter_problems(where, tax, "paper", r, (*path, "where"))
        expected = {}
        for j, cell in enumerate(g.get("expected_empty") or []):
            cpath = (*path, "expected_empty", j)
            if not isinstance(cell, dict) or not cell.get("reason"):
                bad(cpath, "an expected-empty cell needs row, col and a reason")
                continue
            for side in ("rows", "cols"):
                value = cell.get(side[:-1])
                if value not in tax.axes[g[side]].by_id:
                    bad((*cpath, side[:-1]), f"'{value}' is not a value of {g[side]}")
            expected[(str(cell.get("row")), str(cell.get("col")))] = str(cell["reason"])
        sparse = g.get("sparse_at", 1)
        if not isinstance(sparse, int):
            bad((*path, "sparse_at"), "sparse_at is a whole number")
            sparse = 1
        views.gaps.append(
            GapTable(
                g["id"],
                str(g.get("label", g["id"])),
                g["rows"],
                g["cols"],
                sparse,
                where,
                tuple(g.get("omit") or ()),
                expected,
            )
        )
    scale = raw.get("scale") or {}
    fields = tax.kinds["paper"].fields if "paper" in tax.kinds else {}
    for i, name in enumerate(scale.get("fields") or []):
        if name not in fields or fields[name].type != "int":
            bad(("stats", "scale", "fields", i), f"'{name}' is not a numeric field")
        else:
            views.scale_fields.append(name)
    for i, reg in enumerate(scale.get("regimes") or []):
        rpath: FieldPath = ("stats", "scale", "regimes", i)
        if not isinstance(reg, dict):
            bad(rpath, "a regime is a mapping with id, label and where")
            continue
        if not r.safe_id((*rpath, "id"), reg.get("id"), "regime id"):
            continue
        where = reg.get("where") or {}
        filter_problems(where, tax, "paper", r, (*rpath, "where"))
        views.regimes.append(Regime(str(reg.get("id")), str(reg.get("label")), where))
    trend = raw.get("trend")
    if isinstance(trend, dict) and axis(("stats", "trend", "by"), trend.get("by")):
        views.trend = (str(trend.get("field", "year")), trend["by"])
    prisma = raw.get("prisma")
    if isinstance(prisma, dict):
        kind = str(prisma.get("kind"))
        if kind not in tax.kinds:
            bad(("stats", "prisma", "kind"), f"unknown record kind '{kind}'")
        elif axis(("stats", "prisma", "stage_axis"), prisma.get("stage_axis"), kind) & axis(
            ("stats", "prisma", "reason_axis"), prisma.get("reason_axis"), kind
        ):
            views.prisma = {k: str(v) for k, v in prisma.items()}
    for name in ("agreement", "blind_agreement", "screening_audit"):
        review = raw.get(name)
        if isinstance(review, dict) and review.get("file"):
            file = _inside(r, ("stats", name, "file"), review["file"])
            if file is None:
                continue
            seed, skip = review.get("seed", 0), review.get("skip_stages") or []
            if not isinstance(seed, int) or isinstance(seed, bool):
                bad(("stats", name, "seed"), "the seed is a whole number")
                seed = 0
            if not (isinstance(skip, list) and all(isinstance(v, str) for v in skip)):
                bad(("stats", name, "skip_stages"), "expected a list of stage ids")
                skip = []
            method = str(review.get("method") or "")
            setattr(views, name, Review(file, method, seed, list(skip)))
    reader = raw.get("reader")
    if isinstance(reader, dict):
        views.reader = _reader(reader, tax, r, axis)
    elif reader is not None:
        bad(("stats", "reader"), "'reader' must be a mapping")
    return views, problems


def _inside(r: Section, path: FieldPath, value: Any) -> str | None:
    """VALUE when it is a relative path that stays in the repository (a problem if not)."""
    parts = PurePosixPath(str(value)).parts
    if str(value).startswith("/") or ".." in parts or "\\" in str(value) or not parts:
        r.bad(path, f"'{value}' is not a path inside the repository", "e.g. reviews/reader.csv")
        return None
    return str(value)


def _reader(
    raw: dict[str, Any], tax: Taxonomy, r: Section, axis: Callable[[FieldPath, Any], bool]
) -> Reader:
    """The stats.reader declaration, each axis it names checked."""
    out = Reader()
    base: FieldPath = ("stats", "reader")

    def part(name: str) -> dict[str, Any]:
        value = raw.get(name)
        if value is not None and not isinstance(value, dict):
            r.bad((*base, name), f"'{name}' must be a mapping")
        return value if isinstance(value, dict) else {}

    def named(path: FieldPath, value: Any) -> str | None:
        return str(value) if value is not None and axis(path, value) else None

    if isinstance(raw.get("examples"), int) and raw["examples"] > 0:
        out.examples = raw["examples"]
    elif "examples" in raw:
        r.bad((*base, "examples"), "examples is a whole number above 0")
    out.prefer = raw.get("prefer") or {}
    filter_problems(out.prefer, tax, "paper", r, (*base, "prefer"))
    topo = part("topologies")
    if topo:
        out.topologies = named((*base, "topologies", "axis"), topo.get("axis"))
        for value, shape in (topo.get("shapes") or {}).items():
            path = (*base, "topologies", "shapes", value)
            if out.topologies and value not in tax.axes[out.topologies].by_id:
                r.bad(path, f"'{value}' is not a value of {out.topologies}")
            elif shape not in SHAPES:
                r.bad(path, f"unknown shape '{shape}'", f"allowed: {', '.join(SHAPES)}")
            else:
                out.shapes[str(value)] = str(shape)
    fam = part("families")
    if fam:
        out.families = named((*base, "families", "axis"), fam.get("axis"))
        if out.families and not tax.axes[out.families].families:
            r.bad((*base, "families", "axis"), f"axis '{out.families}' declares no families")
            out.families = None
        out.family_credit = named((*base, "families", "credit"), fam.get("credit"))
    bench = part("benchmarks")
    if bench:
        out.benchmarks = bench.get("where") or {}
        filter_problems(out.benchmarks, tax, "paper", r, (*base, "benchmarks", "where"))
        out.bench_group = named((*base, "benchmarks", "group"), bench.get("group"))
        out.bench_multiagent = named((*base, "benchmarks", "multiagent"), bench.get("multiagent"))
        for i, name in enumerate(bench.get("measures") or []):
            if axis((*base, "benchmarks", "measures", i), name):
                out.bench_measures.append(str(name))
    sparse = part("sparsity")
    for i, name in enumerate(sparse.get("axes") or []):
        if axis((*base, "sparsity", "axes", i), name):
            out.sparsity.append(str(name))
    if isinstance(sparse.get("top"), int) and sparse["top"] > 0:
        out.sparsity_top = sparse["top"]
    credit = part("credit")
    if credit:
        out.credit = named((*base, "credit", "axis"), credit.get("axis"))
        out.credit_strictness = named((*base, "credit", "strictness"), credit.get("strictness"))
        value = credit.get("estimator")
        axis_values = tax.axes[out.credit_strictness].by_id if out.credit_strictness else {}
        if value is not None and value not in axis_values:
            r.bad(
                (*base, "credit", "estimator"), f"'{value}' is not a value of the strictness axis"
            )
        elif value is not None:
            out.strict_value = str(value)
    sub = part("subdecisions")
    for i, name in enumerate(sub.get("axes") or []):
        if axis((*base, "subdecisions", "axes", i), name):
            out.subdecisions.append(str(name))
    if sub:
        fields = tax.kinds["paper"].fields if "paper" in tax.kinds else {}
        evidence = sub.get("evidence")
        if evidence is not None and (evidence not in fields or fields[evidence].type != "evidence"):
            r.bad((*base, "subdecisions", "evidence"), f"'{evidence}' is not an evidence field")
        else:
            out.evidence = evidence
        anchor = sub.get("anchor")
        if anchor is not None and evidence in fields and anchor not in fields[evidence].sources:
            r.bad((*base, "subdecisions", "anchor"), f"'{anchor}' is not a source of {evidence}")
        elif anchor is not None:
            out.anchor = str(anchor)
    return out
