"""Agreement between the corpus's tags and a second reader's.

Reads a CSV with a `key` column and `ann_<axis>` columns (the second reader's tag for each
axis, as in the survey's spot-check file); compares them with the corpus per axis: how many
entries agree, in percent, and the list of disagreements. The survey's second reader saw the
first reader's tags, so the check is an adjudication, not an independent rating: no
chance-corrected statistic (Cohen's kappa, Krippendorff's alpha) is computed from it.
"""

from __future__ import annotations

import contextlib
import csv
import stat
from pathlib import Path
from typing import Any

from ..model.corpus import Corpus
from ..model.problems import Problem
from ..model.yamlio import leaves

PREFIX = "ann_"
MAX_BYTES = 4 << 20  # one short row per entry: far more than any second reader's file


def agreement(corpus: Corpus, file: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Per-axis agreement of the corpus with the second reader in FILE."""
    rel = file.name
    with contextlib.suppress(ValueError, OSError, RuntimeError):  # RuntimeError: a link loop
        rel = (file.parent.resolve() / file.name).relative_to(corpus.root.resolve()).as_posix()
    if leaves(file, corpus.root):
        return None, [
            Problem(rel, "symlink-outside", "symbolic link points outside the repository; "
                    "it is not read", hint="commit the file itself")
        ]  # fmt: skip
    try:
        info = file.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or device would block or never end
            return None, [Problem(rel, "agreement-invalid", "not a regular file")]
        if info.st_size > MAX_BYTES:
            size = f"file is {info.st_size:,} bytes; the limit is {MAX_BYTES:,}"
            return None, [Problem(rel, "agreement-invalid", size)]
        with open(file, encoding="utf-8-sig", newline="") as f:  # a spreadsheet's BOM is fine
            reader = csv.reader(f)
            table = [(reader.line_num, row) for row in reader if row]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return None, [Problem(rel, "agreement-invalid", f"cannot read the file: {exc}")]
    columns = table[0][1] if table else []
    problems = [
        Problem(rel, "agreement-invalid", f"column '{name}' appears twice", 1, i + 1,
                hint="keep one: a reader would take the last without a word")
        for i, name in enumerate(columns)
        if name in columns[:i]
    ]  # fmt: skip
    if problems:
        return None, problems
    rows = [(line, dict(zip(columns, row, strict=False))) for line, row in table[1:]]
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
    for axis in rated:
        pairs = [(str(papers[row["key"]].get(axis)), row.get(PREFIX + axis, "")) for row in known]
        agreed = sum(a == b for a, b in pairs)
        result["axes"].append(
            {
                "axis": axis,
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
    lines.append(f"{'axis':<26} {'entries':>7} {'agreed':>7} {'percent':>8}")
    for a in result["axes"]:
        percent = "n/a" if a["agreement"] is None else f"{100 * a['agreement']:.1f}"
        lines.append(f"{a['axis']:<26} {a['n']:>7} {a['agreed']:>7} {percent:>8}")
    for a in result["axes"]:
        for d in a["disagreements"]:
            lines.append(
                f"  {a['axis']}: {d['key']}: corpus {d['corpus']}, "
                f"second reader {d['second_reader']}"
            )
    return "\n".join(lines)
