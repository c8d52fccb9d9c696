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

PREFIX = "ann_"
MAX_BYTES = 4 << 20  # one short row per entry: far more than any second reader's file


def agreement(corpus: Corpus, file: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Per-axis agreement of the corpus with the second reader in FILE."""
    rel = file.name
    with contextlib.suppress(ValueError, OSError, RuntimeError):  # RuntimeError: a link loop
        rel = (file.parent.resolve() / file.name).relative_to(corpus.root.resolve()).as_posix()
    try:
        info = file.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or device would block or never end
            return None, [Problem(rel, "agreement-invalid", "not a regular file")]
        if info.st_size > MAX_BYTES:
            size = f"file is {info.st_size:,} bytes; the limit is {MAX_BYTES:,}"
            return None, [Problem(rel, "agreement-invalid", size)]
        with open(file, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return None, [Problem(rel, "agreement-invalid", f"cannot read the file: {exc}")]
    columns = list(rows[0]) if rows else []
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
    problems = [
        Problem(
            rel,
            "agreement-invalid",
            f"'{row['key']}' is not an entry of the corpus",
            i + 2,
            1,
            "key",
        )
        for i, row in enumerate(rows)
        if row["key"] not in papers
    ]
    result: dict[str, Any] = {"file": rel, "n": 0, "axes": []}
    known = [row for row in rows if row["key"] in papers]
    result["n"] = len(known)
    for axis in rated:
        pairs = [(str(papers[row["key"]].get(axis)), row[PREFIX + axis]) for row in known]
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
