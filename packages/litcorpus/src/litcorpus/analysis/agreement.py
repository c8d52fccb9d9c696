"""Agreement between the corpus's tags and a second reader's.

Reads a CSV with a `key` column and `ann_<axis>` columns (the second reader's tag for each
axis, as in the survey's spot-check file); compares them with the corpus per axis: how many
entries agree, in percent, and the list of disagreements. The survey's second reader saw the
first reader's tags, so that check is an adjudication, not an independent rating, and no
chance-corrected statistic is computed from it; a file declared `blind` (a reader who tagged
from the works alone) also gets Cohen's kappa per single-valued axis.
"""

from __future__ import annotations

import contextlib
import csv
import stat
from pathlib import Path
from typing import Any

from ..model.corpus import Corpus
from ..model.problems import Problem
from ..model.taxonomy import Axis
from ..model.yamlio import leaves
from .kappa import kappa

PREFIX = "ann_"
MAX_BYTES = 4 << 20  # one short row per entry: far more than any second reader's file


def read_table(
    corpus: Corpus, file: Path, code: str
) -> tuple[str, list[str], list[tuple[int, dict[str, str]]], list[Problem]]:
    """FILE's path from the root, its columns and its rows (with line numbers), read as a
    reviewer's CSV: inside the repository, a regular file of bounded size, no column twice.
    Problems carry CODE; any problem leaves the columns and rows empty."""
    rel = file.name
    with contextlib.suppress(ValueError, OSError, RuntimeError):  # RuntimeError: a link loop
        rel = (file.parent.resolve() / file.name).relative_to(corpus.root.resolve()).as_posix()
    if leaves(file, corpus.root):
        return rel, [], [], [
            Problem(rel, "symlink-outside", "symbolic link points outside the repository; "
                    "it is not read", hint="commit the file itself")
        ]  # fmt: skip
    try:
        info = file.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or device would block or never end
            return rel, [], [], [Problem(rel, code, "not a regular file")]
        if info.st_size > MAX_BYTES:
            size = f"file is {info.st_size:,} bytes; the limit is {MAX_BYTES:,}"
            return rel, [], [], [Problem(rel, code, size)]
        with open(file, encoding="utf-8-sig", newline="") as f:  # a spreadsheet's BOM is fine
            reader = csv.reader(f)
            table = [(reader.line_num, row) for row in reader if row]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return rel, [], [], [Problem(rel, code, f"cannot read the file: {exc}")]
    columns = table[0][1] if table else []
    problems = [
        Problem(rel, code, f"column '{name}' appears twice", 1, i + 1,
                hint="keep one: a reader would take the last without a word")
        for i, name in enumerate(columns)
        if name in columns[:i]
    ]  # fmt: skip
    if problems:
        return rel, [], [], problems
    rows = [(line, dict(zip(columns, row, strict=False))) for line, row in table[1:]]
    return rel, columns, rows, []


def _value(axis: Axis, raw: Any) -> str:
    """One tag as both readers' values are compared: a list axis as its values in the axis's
    order joined by ';' (the order a reader lists them in does not count), an absent
    single value as NA."""
    if axis.multi:
        items = raw if isinstance(raw, list) else str(raw or "").split(";")
        got = {str(v).strip() for v in items if str(v).strip()}
        order = {v.id: v.order for v in axis.values}
        return ";".join(sorted(got, key=lambda v: (order.get(v, len(order)), v)))
    text = "" if raw is None else str(raw).strip()
    return text or "NA"


def agreement(
    corpus: Corpus, file: Path, blind: bool = False
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Per-axis agreement of the corpus with the second reader in FILE; for a BLIND reader
    (one who never saw the corpus's tags), Cohen's kappa of each single-valued axis too."""
    rel, columns, rows, problems = read_table(corpus, file, "agreement-invalid")
    if problems:
        return None, problems
    axes = [a.id for a in corpus.taxonomy.axes_for("paper")]
    rated = [c[len(PREFIX) :] for c in columns if c.startswith(PREFIX) and c[len(PREFIX) :] in axes]
    if "key" not in columns or not rated:
        return None, [
            Problem(
                rel,
                "agreement-invalid",
                f"the file needs a 'key' column and {PREFIX}<axis> columns",
                1,
                1,
                hint=f"axes: {', '.join(axes)}",
            )
        ]
    papers = {r.stem: r.data for r in corpus.of("paper")}
    line_of: dict[str, int] = {}
    known = []
    for line, row in rows:
        key = row.get("key", "")
        if key not in papers:
            problems.append(
                Problem(rel, "agreement-invalid", f"'{key}' is not an entry of the corpus",
                        line, 1, "key")
            )  # fmt: skip
        elif key in line_of:
            problems.append(
                Problem(rel, "agreement-invalid",
                        f"'{key}' is rated twice (lines {line_of[key]} and {line})", line, 1,
                        "key", "keep one row per entry; only the first is counted")
            )  # fmt: skip
        else:
            line_of[key] = line
            known.append(row)
    result: dict[str, Any] = {"file": rel, "n": 0, "axes": []}
    result["n"] = len(known)
    for name in rated:
        axis = corpus.taxonomy.axes[name]
        pairs = [
            (_value(axis, papers[row["key"]].get(name)), _value(axis, row.get(PREFIX + name)))
            for row in known
        ]
        agreed = sum(a == b for a, b in pairs)
        if blind and not axis.multi and pairs:
            seen = sorted({v for pair in pairs for v in pair})
            rated_kappa = kappa(pairs, seen)
            chance = {k: rated_kappa[k] for k in ("kappa", "se", "ci95")}
        else:
            chance = {}
        result["axes"].append(
            {
                "axis": name,
                **chance,
                "n": len(pairs),
                "agreed": agreed,
                "agreement": round(agreed / len(pairs), 4) if pairs else None,
                "disagreements": [
                    {"key": row["key"], "corpus": a, "second_reader": b}
                    for row, (a, b) in zip(known, pairs, strict=True)
                    if a != b
                ],
            }
        )
    return result, problems


def agreement_text(result: dict[str, Any]) -> str:
    lines = [f"Agreement with {result['file']} ({result['n']} entries), in percent", ""]
    lines.append(f"{'axis':<26} {'entries':>7} {'agreed':>7} {'percent':>8}  kappa (95% CI)")
    for a in result["axes"]:
        percent = "n/a" if a["agreement"] is None else f"{100 * a['agreement']:.1f}"
        ci = a.get("ci95")
        k = f"  {a['kappa']} ({ci[0]} to {ci[1]})" if ci else ""
        lines.append(f"{a['axis']:<26} {a['n']:>7} {a['agreed']:>7} {percent:>8}{k}")
    for a in result["axes"]:
        for d in a["disagreements"]:
            lines.append(
                f"  {a['axis']}: {d['key']}: corpus {d['corpus']}, "
                f"second reader {d['second_reader']}"
            )
    return "\n".join(lines)
