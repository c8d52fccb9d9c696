"""Which citable tables the statistics make: each statistic of the stats dict as a Table
(citable.py renders it as CSV, LaTeX and Markdown). `build_tables` lists them."""

from __future__ import annotations

from typing import Any

from ..model.taxonomy import Taxonomy
from .citable import Cell, Table
from .presentation import value_name, value_names, where_text
from .readertables import reader_tables

STATE_MARK = {"expected_empty": "n/a", "empty": "0"}


def _update_table(u: dict[str, Any], tax: Taxonomy) -> Table:
    """The update flow box by box: each source's records and duplicates (PRISMA 2020's
    database-specific counts), what was set aside, not retrieved or awaits screening, what
    was excluded for which reason, and the studies included."""
    reason_axis = tax.views.prisma["reason_axis"]
    rows: list[list[Any]] = [
        ["previous release", u["previous"]["version"], u["previous"]["studies"]]
    ]
    for arm, label in (("searches", "databases"), ("other", "other methods")):
        a = u[arm]
        for s in a["sources"]:
            rows.append(
                [
                    f"{label}: {s['database']}",
                    f"records from {s['searches']} searches",
                    s["records_found"],
                ]
            )
            rows.append([f"{label}: {s['database']}", "duplicates removed", s["duplicates"]])
            if s["unscreenable"]:
                rows.append(
                    [f"{label}: {s['database']}", "removed: no title to screen", s["unscreenable"]]
                )
        if arm == "other":
            logged = sum(s["records_found"] for s in a["sources"])
            rows.append([label, "records found without a logged search", a["identified"] - logged])
        rows.append([label, "found by earlier searches, screened now", a["carried"]])
        rows.append([label, "set aside by the stopping rule", a["automation"]])
        rows.append([label, "sought, not retrieved", a["not_retrieved"]])
        rows.append([label, "awaiting screening", a["awaiting"]])
        for st in a["stages"]:
            for r, n in st["reasons"].items():
                rows.append(
                    [label, f"excluded ({st['label']}): {value_name(tax, reason_axis, r)}", n]
                )
        rows.append([label, "included", a["included"]])
    rows.append(["new studies", "", u["new_studies"]])
    rows.append(["total studies", "", u["total_studies"]])
    return Table(
        "prisma-update",
        f"Screening flow since release {u['previous']['version']} (PRISMA 2020 update), by source",
        ["box", "detail", "n"],
        rows,
        align="llr",
    )


def scope_notes(stats: dict[str, Any], tax: Taxonomy) -> dict[str, str]:
    """Why a gap table and the cross-tab of the same two axes can show different numbers for
    one cell: {table id ('gap-...' or 'crosstab-...'): a sentence with a cell that differs}."""
    views = {g.id: g for g in tax.views.gaps}
    out: dict[str, str] = {}
    for g in stats["gaps"]:
        view = views.get(g["id"])
        if view is None or not view.where:
            continue
        for t in stats["crosstabs"]:
            if (t["rows_axis"], t["cols_axis"]) != (g["rows_axis"], g["cols_axis"]):
                continue
            grid = {(c["row"], c["col"]): c["count"] for c in g["cells"]}
            example = next(
                (
                    (r, c, n, grid[(r, c)])
                    for r, row in zip(t["rows"], t["cells"], strict=True)
                    for c, n in zip(t["cols"], row, strict=True)
                    if (r, c) in grid and grid[(r, c)] != n
                ),
                None,
            )
            scope = where_text(tax, view.where)
            said = ""
            if example:
                r, c, there, here = example
                rows, cols = value_name(tax, g["rows_axis"], r), value_name(tax, g["cols_axis"], c)
                cell = f"{rows} \u00d7 {cols}"
                said = f" ({cell}: {there} in the cross-tab, {here} in the gap table)"
            out[f"gap-{g['id']}"] = (
                f"This gap table counts only entries where {scope}; the cross-tab "
                f"\u201c{t['label']}\u201d counts every retained entry, so a cell can be "
                f"higher there{said}."
            )
            out[f"crosstab-{t['id']}"] = (
                f"This cross-tab counts every retained entry; the gap table "
                f"\u201c{g['label']}\u201d counts only entries where {scope}, so a cell can be "
                f"lower there{said}."
            )
    return out


def build_tables(stats: dict[str, Any], tax: Taxonomy) -> list[Table]:
    tables = []
    views = {g.id: g for g in tax.views.gaps}
    c = stats["corpus"]
    tables.append(
        Table(
            "corpus",
            "Headline counts",
            ["measure", "n"],
            [["retained", c["retained"]], ["excluded", c["excluded"]], ["audited", c["audited"]]],
        )
    )
    for axis, counts in stats["counts"].items():
        a = tax.axes[axis]
        rows: list[list[Cell]] = [[value_name(tax, axis, v), n] for v, n in counts.items()]
        tables.append(
            Table(
                f"counts-{axis}",
                f"Entries per value of {a.label}",
                ["value", "n"],
                rows,
                "Multi-valued: an entry counts once per value." if a.multi else "",
            )
        )
    for axis, fams in stats["families"].items():
        a = tax.axes[axis]
        tables.append(
            Table(
                f"families-{axis}",
                f"Entries per family of {a.label}",
                ["family", "label", "n"],
                [[code, a.families[code], n] for code, n in fams.items()],
            )
        )
    notes = scope_notes(stats, tax)
    for t in stats["crosstabs"]:
        tables.append(
            Table(
                f"crosstab-{t['id']}",
                t["label"],
                [tax.axes[t["rows_axis"]].label, *value_names(tax, t["cols_axis"], t["cols"])],
                [
                    [value_name(tax, t["rows_axis"], r), *cells]
                    for r, cells in zip(t["rows"], t["cells"], strict=True)
                ],
                notes.get(f"crosstab-{t['id']}", ""),
            )
        )
    for g in stats["gaps"]:
        grid = {(cell["row"], cell["col"]): cell for cell in g["cells"]}
        scope = where_text(tax, views[g["id"]].where) if g["id"] in views else g["where"]
        rows = [
            [
                value_name(tax, g["rows_axis"], r),
                *(
                    STATE_MARK.get(grid[(r, col)]["state"], grid[(r, col)]["count"])
                    for col in g["cols"]
                ),
            ]
            for r in g["rows"]
        ]
        tables.append(
            Table(
                f"gap-{g['id']}",
                g["label"],
                [tax.axes[g["rows_axis"]].label, *value_names(tax, g["cols_axis"], g["cols"])],
                rows,
                f"Entries: {scope}. 0 = unexplored, n/a = does not apply, sparse = "
                + {1: "1.", 2: "1 or 2."}.get(g["sparse_at"], f"1 to {g['sparse_at']}.")
                + (" " + notes[f"gap-{g['id']}"] if f"gap-{g['id']}" in notes else ""),
            )
        )
    scale = stats["scale"]
    if scale["regimes"]:
        header = ["regime", "entries", "report nothing"]
        fields = tax.kinds["paper"].fields if "paper" in tax.kinds else {}
        for name in scale["fields"]:
            spec = fields.get(name)
            said = (spec.label if spec and spec.label else name).lower()
            header += [f"{said}: reported", f"{said}: median", f"{said}: max"]
        rows = []
        for reg in scale["regimes"]:
            row: list[Cell] = [reg["label"], reg["entries"], reg["not_reporting"]]
            for name in scale["fields"]:
                s = reg["summary"][name]
                row += [s["reporting"], s["median"], s["max"]]
            rows.append(row)
        tables.append(
            Table(
                "scale-gap",
                "Reported team scale: industrial deployments against open academic methods",
                header,
                rows,
            )
        )
    if "trend" in stats:
        t = stats["trend"]
        tables.append(
            Table(
                "trend",
                f"Entries per {t['field']} by {t['by']}",
                [t["field"], *value_names(tax, t["by"], t["cols"])],
                [[y, *cells] for y, cells in zip(t["rows"], t["cells"], strict=True)],
            )
        )
    if stats["prisma"]:
        p = stats["prisma"]
        stage_axis, reason_axis = tax.views.prisma["stage_axis"], tax.views.prisma["reason_axis"]
        rows = [["identified", "", p["identified"]]]
        for s in p["stages"]:
            stage = value_name(tax, stage_axis, s["id"])
            rows.append([stage, "assessed", s["assessed"]])
            rows.append([stage, "excluded", s["excluded"]])
            rows += [
                [stage, f"excluded: {value_name(tax, reason_axis, r)}", n]
                for r, n in s["reasons"].items()
            ]
        rows.append(["included", "", p["included"]])
        tables.append(Table("prisma", "Screening flow", ["box", "detail", "n"], rows))
    if stats.get("prisma_update"):
        tables.append(_update_table(stats["prisma_update"], tax))
    if stats["claims"]:
        rows = [[x["id"], "yes" if x["held"] else "no", x["expected"], x["actual"]]
                for x in stats["claims"]]  # fmt: skip
        tables.append(Table("claims", "The survey's claims, evaluated",
                            ["claim", "held", "expected", "actual"], rows))  # fmt: skip
    for name, what in (
        ("agreement", "Second-reader check"),
        ("blind_agreement", "Blind second reader"),
    ):
        if ag := stats.get(name):
            blind = name == "blind_agreement"
            tables.append(
                Table(
                    name.replace("_", "-"),
                    f"{what} on {ag['n']} entries, in percent agreement"
                    + (" and Cohen's kappa (single-valued axes)" if blind else ""),
                    ["axis", "entries", "agreed", "agreement (%)", "disagreements"]
                    + (["kappa", "kappa 95% CI"] if blind else []),
                    [
                        [
                            tax.axes[a["axis"]].label if a["axis"] in tax.axes else a["axis"],
                            a["n"],
                            a["agreed"],
                            None if a["agreement"] is None else round(100 * a["agreement"], 1),
                            len(a["disagreements"]),
                        ]
                        + ([a.get("kappa"), _interval(a.get("ci95"))] if blind else [])
                        for a in ag["axes"]
                    ],
                    ag.get("method", ""),
                )
            )
    if audit := stats.get("screening_audit"):
        tables.append(
            Table(
                "screening-audit",
                f"Blind second screening of {audit['records']} decided records",
                ["corpus", *(f"second: {d}" for d in audit["table"])],
                [[a, *row.values()] for a, row in audit["table"].items()],
                f"Cohen's kappa {audit['kappa']} (95% CI {_interval(audit['ci95'])}); "
                f"observed agreement {audit['observed']}, by chance {audit['expected']}. "
                + audit.get("method", ""),
            )
        )
    if stats.get("reader"):
        tables += reader_tables(stats["reader"], tax)
    return tables


def _interval(ci: list[float] | None) -> str | None:
    return None if not ci else f"{ci[0]} to {ci[1]}"
