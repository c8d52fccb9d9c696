"""Citable tables: each statistic as CSV, LaTeX (booktabs) and Markdown, with a stable id,
the corpus version and a content hash in its header or caption.

Reads the stats dict; `build_tables` lists the tables, `render` turns one into its files.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from typing import Any

from ..model.taxonomy import Taxonomy
from .escape import csv_cell, latex_text, md_text
from .presentation import value_name, where_text

Cell = str | int | float | None
STATE_MARK = {"expected_empty": "n/a", "empty": "0"}


@dataclass(slots=True)
class Table:
    id: str
    title: str
    header: list[str]
    rows: list[list[Cell]]
    note: str = ""
    provenance: str = field(default="", init=False)

    def body_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows([["" if c is None else csv_cell(c) for c in row] for row in self.rows])
        return buf.getvalue()

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.body_csv().encode()).hexdigest()[:12]


def _fmt(cell: Cell) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float):
        return f"{cell:.3f}".rstrip("0").rstrip(".")
    return str(cell)


def render(table: Table, version: str) -> dict[str, str]:
    """The table's three files: {extension: text}. A table cites itself by its id, the corpus
    version and its own content hash, so it changes only when its content does."""
    cite = f"{table.id}, corpus {version}, sha256:{table.sha256}"
    table.provenance = cite
    note = f" {table.note}" if table.note else ""
    comment = " ".join(f"Table {cite}. {table.title}.{note}".split())
    csv_text = f"# {comment}\n" + table.body_csv()
    align = "l" + "r" * (len(table.header) - 1)
    tex = [
        f"% Table {cite}",
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{latex_text(table.title)}.{latex_text(note)} "
        rf"[{latex_text(cite)}]}}",
        rf"\label{{tab:{table.id}}}",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_text(h) for h in table.header) + r" \\",
        r"\midrule",
    ]
    tex += [" & ".join(latex_text(_fmt(c)) for c in row) + r" \\" for row in table.rows]
    tex += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    md = [
        f"**Table {table.id}.** {md_text(f'{table.title}.{note}')} "
        f"_(corpus {version}; sha256:{table.sha256})_",
        "",
        "| " + " | ".join(md_text(h) for h in table.header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(table.header) - 1)) + "|",
    ]
    md += ["| " + " | ".join(md_text(_fmt(c)) for c in row) + " |" for row in table.rows]
    return {"csv": csv_text, "tex": "\n".join(tex), "md": "\n".join(md) + "\n"}


def _labels(tax: Taxonomy, axis: str, values: list[str]) -> list[str]:
    return [value_name(tax, axis, v) for v in values]


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
    for t in stats["crosstabs"]:
        tables.append(
            Table(
                f"crosstab-{t['id']}",
                t["label"],
                [tax.axes[t["rows_axis"]].label, *_labels(tax, t["cols_axis"], t["cols"])],
                [
                    [value_name(tax, t["rows_axis"], r), *cells]
                    for r, cells in zip(t["rows"], t["cells"], strict=True)
                ],
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
                [tax.axes[g["rows_axis"]].label, *_labels(tax, g["cols_axis"], g["cols"])],
                rows,
                f"Entries: {scope}. 0 = unexplored, n/a = does not apply, sparse = "
                + ("1." if g["sparse_at"] == 1 else f"1 to {g['sparse_at']}."),
            )
        )
    scale = stats["scale"]
    if scale["regimes"]:
        header = ["regime", "entries", "report nothing"]
        for name in scale["fields"]:
            header += [f"{name} reported", f"{name} median", f"{name} max"]
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
                [t["field"], *_labels(tax, t["by"], t["cols"])],
                [[y, *cells] for y, cells in zip(t["rows"], t["cells"], strict=True)],
            )
        )
    if stats["prisma"]:
        p = stats["prisma"]
        rows = [["identified", "", p["identified"]]]
        for s in p["stages"]:
            rows.append([s["id"], "assessed", s["assessed"]])
            rows.append([s["id"], "excluded", s["excluded"]])
            rows += [[s["id"], f"excluded: {r}", n] for r, n in s["reasons"].items()]
        rows.append(["included", "", p["included"]])
        tables.append(Table("prisma", "Screening flow", ["box", "detail", "n"], rows))
    tables.append(
        Table(
            "claims",
            "The survey's claims, evaluated",
            ["claim", "held", "expected", "actual"],
            [
                [x["id"], "yes" if x["held"] else "no", x["expected"], x["actual"]]
                for x in stats["claims"]
            ],
        )
    )
    if stats.get("agreement"):
        ag = stats["agreement"]
        tables.append(
            Table(
                "agreement",
                f"Agreement with a second reader ({ag['n']} entries)",
                ["axis", "n", "agreement", "kappa", "disagreements"],
                [
                    [a["axis"], a["n"], a["agreement"], a["kappa"], len(a["disagreements"])]
                    for a in ag["axes"]
                ],
            )
        )
    return tables
