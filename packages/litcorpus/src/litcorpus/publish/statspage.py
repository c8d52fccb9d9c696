"""The statistics page's order: a few sections, the most important first, each holding its
figures and tables; every figure and table of stats/ once, and no family twice (the gap maps
are the gap tables, drawn on the gap-map page, so neither their dot plots nor their stacked bars
are repeated here).

Reads the stats dict, its tables (tables.build_tables) and figure titles; returns sections
for stats.html.j2: [{"id", "title", "intro", "items": [{"kind": "figure" | "table", ...}]}].
"""

from __future__ import annotations

from typing import Any

from .citable import Table

# (section id, title, introduction, table id prefixes, figure name prefixes), in page order
SECTIONS = [
    (
        "maps",
        "The survey's maps",
        "The three axes the survey reads the field by, drawn from the entries.",
        [],
        ["concept-subdecisions", "concept-credit", "concept-topologies"],
    ),
    (
        "gaps",
        "Coverage gaps",
        "Which combinations the corpus covers, sparsely covers or leaves unexplored; the gap map "
        "draws the same tables and leads from each cell to its papers.",
        ["gap-"],
        [],
    ),
    (
        "reader",
        "Reader tables",
        "What each topology, reward family and benchmark is, with example entries.",
        ["reader-"],
        [],
    ),
    ("growth", "Growth", "Entries per year of publication.", ["trend"], ["trend"]),
    (
        "counts",
        "Counts",
        "Entries per value of every axis.",
        ["corpus", "counts-", "families-"],
        ["counts-paper"],
    ),
    (
        "crosstabs",
        "Cross-tabulations",
        "Two axes against each other, over every retained entry.",
        ["crosstab-"],
        [],
    ),
    (
        "scale",
        "Team scale",
        "How many agents and tool calls the works report.",
        ["scale-gap"],
        ["scale-gap"],
    ),
    (
        "screening",
        "Screening",
        "How records were found, screened and kept or excluded.",
        ["prisma"],
        ["prisma", "prisma-update", "counts-exclusion"],
    ),
    (
        "claims",
        "Claims and checks",
        "The claims' verdicts, the second readers' agreement and the blind second screening.",
        ["claims", "agreement", "blind-agreement", "screening-audit"],
        [],
    ),
]
SKIPPED_FIGURES = ("gap-", "coverage-")  # the gap tables' own drawings (see above)


def _starts(name: str, prefixes: list[str]) -> bool:
    return any(name == p or (p.endswith("-") and name.startswith(p)) for p in prefixes)


def stats_sections(
    stats: dict[str, Any], tables: list[Table], titles: dict[str, str]
) -> list[dict[str, Any]]:
    """The page's sections; anything no section claims goes under "More"."""
    figures = [n for n in stats.get("figures", {}) if not n.startswith(SKIPPED_FIGURES)]
    placed: set[str] = set()
    out = []
    for sid, title, intro, table_prefixes, figure_prefixes in [
        *SECTIONS,
        ("more", "More", "", [""], [""]),
    ]:
        items: list[dict[str, Any]] = []
        for prefix in figure_prefixes:  # in the order the section names them
            for name in figures:
                if name not in placed and (prefix == "" or _starts(name, [prefix])):
                    placed.add(name)
                    items.append({"kind": "figure", "id": name, "title": titles.get(name, name)})
        for t in tables:
            key = "table:" + t.id
            if key not in placed and ("" in table_prefixes or _starts(t.id, table_prefixes)):
                placed.add(key)
                items.append({"kind": "table", "id": t.id, "title": t.title, "table": t})
        if items:
            out.append({"id": sid, "title": title, "intro": intro, "items": items})
    return out
