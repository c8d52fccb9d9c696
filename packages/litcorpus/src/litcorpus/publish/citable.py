"""A citable table: its id, title, header, rows and note, and its three files (CSV, LaTeX with
booktabs, Markdown), each citing the table by its id, the corpus version and a content hash,
in the caption of the LaTeX and Markdown files, and for a CSV file (whose first line must be
its header, as pandas and spreadsheets read it) in tables/index.csv beside it (see statsdir).
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field

from .escape import csv_cell, latex_text, md_text

Cell = str | int | float | None


@dataclass(slots=True)
class Table:
    id: str
    title: str
    header: list[str]
    rows: list[list[Cell]]
    note: str = ""
    align: str = ""  # one letter per column (l or r); default: text first, numbers after
    provenance: str = field(default="", init=False)

    @property
    def aligns(self) -> str:
        return self.align or "l" + "r" * (len(self.header) - 1)

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
    align = table.aligns
    tex = [
        f"% Table {cite}",
        r"% Needs \usepackage{booktabs} (for \toprule, \midrule and \bottomrule).",
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
        *_md_grid(table),
    ]
    return {"csv": table.body_csv(), "tex": "\n".join(tex), "md": "\n".join(md) + "\n"}


def _md_grid(table: Table) -> list[str]:
    """The table as Markdown with its pipes aligned (as awesome-lint asks of a README)."""
    head = [md_text(h) for h in table.header]
    body = [[md_text(_fmt(c)) for c in row] for row in table.rows]
    widths = [max(3, *(len(r[i]) for r in [head, *body])) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        padded = (
            c.rjust(w) if a == "r" else c.ljust(w)
            for c, w, a in zip(cells, widths, table.aligns, strict=True)
        )
        return "| " + " | ".join(padded) + " |"

    rule = [
        "-" * (w - 1) + ":" if a == "r" else "-" * w
        for w, a in zip(widths, table.aligns, strict=True)
    ]
    return [line(head), "| " + " | ".join(rule) + " |", *(line(r) for r in body)]
