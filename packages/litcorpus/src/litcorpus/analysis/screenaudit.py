"""The screening audit: a blind second screening of records the corpus has already decided.

A sample of the decided records (retained entries and exclusions, stratified by decision with
proportional allocation) is written as a worksheet that names each record by a neutral id and
shows its facts only, never the decision. A second reviewer decides each from the facts, the
work's own abstract and the inclusion rules, and returns the worksheet with `decision`
(include or exclude) and, for an exclusion, `reason` (a code such as X2). The comparison is
Cohen's kappa on include against exclude, with its 95% interval, the agreement on the reason
where both excluded, and each conflict with its resolution (`resolution`: which decision
stands, `resolution_note`: why), which the worksheet's owner writes after comparing. Freezing
writes the corpus's decisions into the worksheet as they were when compared, so correcting
the corpus afterwards (a conflict the second screener wins) does not rewrite the measure.

The neutral id is a digest of the seed and the record's id, so the comparison recovers the
record without a key file the second reviewer could read.
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model.corpus import Corpus, Record
from ..model.problems import Problem
from .agreement import read_table
from .kappa import kappa

DECISIONS = ("include", "exclude")
FACTS = ("title", "url", "arxiv", "doi")  # what every record holds: more would tell kinds apart
SHEET = ("id", *FACTS, "decision", "reason", "note")
CODE = "screening-audit-invalid"


@dataclass(frozen=True, slots=True)
class First:
    """The corpus's decision on one audited record."""

    record: str
    decision: str
    reason: str  # the exclusion reason's code (X2), empty for an entry

    @property
    def stratum(self) -> str:
        return f"{self.decision} {self.reason}".strip()


@dataclass(frozen=True, slots=True)
class Decided:
    record: Record
    first: First


def frame(corpus: Corpus, skip_stages: list[str]) -> list[Decided]:
    """Every decided record the audit may draw: the entries, and the exclusions except those
    made at SKIP_STAGES (the duplicate screen judges sameness, not eligibility)."""
    prisma = corpus.taxonomy.views.prisma  # which kind is excluded, at which stage, why
    out = [Decided(r, First(r.stem, "include", "")) for r in corpus.of("paper")]
    if not prisma:
        return out
    reason_axis = corpus.taxonomy.axes[prisma["reason_axis"]]
    for r in corpus.of(prisma["kind"]):
        if str(r.data.get(prisma["stage_axis"])) in skip_stages:
            continue
        value = reason_axis.by_id.get(str(r.data.get(reason_axis.id)))
        code = (value.code or value.id) if value else str(r.data.get(reason_axis.id))
        out.append(Decided(r, First(r.stem, "exclude", code)))
    return sorted(out, key=lambda d: (d.record.kind, d.record.stem))


def blind_id(record: Record, seed: int) -> str:
    return "R" + hashlib.sha256(f"{seed}:{record.kind}:{record.stem}".encode()).hexdigest()[:8]


def draw(decided: list[Decided], size: int, seed: int) -> list[Decided]:
    """SIZE records drawn with SEED, each stratum (include, exclude by reason) in proportion
    to its share of the frame (largest remainders), every stratum at least once when SIZE
    is at least the number of strata."""
    strata: dict[str, list[Decided]] = {}
    for d in decided:
        strata.setdefault(d.first.stratum, []).append(d)
    size = min(size, len(decided))
    quota = {s: size * len(m) / len(decided) for s, m in strata.items()}
    least = 1 if size >= len(strata) else 0  # every stratum once, when the size allows
    take = {s: max(least, int(q)) for s, q in quota.items()}
    while sum(take.values()) > size:  # the small strata's one each came from the largest
        big = [s for s in take if take[s] > 1]
        take[max(big, key=lambda s: (take[s] - quota[s], take[s], s))] -= 1
    by_remainder = sorted(strata, key=lambda s: (-(quota[s] - int(quota[s])), s))
    for s in by_remainder:
        if sum(take.values()) >= size:
            break
        if take[s] < len(strata[s]):
            take[s] += 1
    rng = random.Random(seed)
    chosen = [
        d for s in sorted(strata) for d in rng.sample(strata[s], min(take[s], len(strata[s])))
    ]
    rng.shuffle(chosen)  # the worksheet's order says nothing about the strata
    return chosen


def _fact(record: Record, name: str) -> str:
    data = record.data
    if name in ("arxiv", "doi"):
        return str((data.get("ids") or {}).get(name, ""))
    if name == "authors":
        return "; ".join(str(a) for a in data.get("authors") or [])
    return str(data.get(name, ""))


def worksheet(chosen: list[Decided], seed: int) -> str:
    """The blind worksheet as CSV: neutral ids and facts, empty decision columns."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SHEET)
    for d in chosen:
        w.writerow([blind_id(d.record, seed), *(_fact(d.record, f) for f in FACTS), "", "", ""])
    return buf.getvalue()


FROZEN = ("record", "corpus_decision", "corpus_reason")  # the corpus's decision, as compared


def _firsts(corpus: Corpus, seed: int, skip_stages: list[str]) -> dict[str, First]:
    return {blind_id(d.record, seed): d.first for d in frame(corpus, skip_stages)}


def freeze(corpus: Corpus, file: Path, seed: int, skip_stages: list[str]) -> str | None:
    """FILE with the corpus's present decision written into each row that lacks one (columns
    record, corpus_decision, corpus_reason), so that a later correction of the corpus, such as
    a conflict resolved in the second screener's favour, leaves the audit as it was measured.
    None when the file cannot be read."""
    _, columns, rows, problems = read_table(corpus, file, CODE)
    if problems or not columns:
        return None
    firsts = _firsts(corpus, seed, skip_stages)
    out = io.StringIO()
    w = csv.DictWriter(out, [*columns, *(c for c in FROZEN if c not in columns)],
                       lineterminator="\n")  # fmt: skip
    w.writeheader()
    for _, row in rows:
        first = firsts.get(row.get("id", "").strip())
        if first and not row.get("corpus_decision"):
            row |= {"record": first.record, "corpus_decision": first.decision,
                    "corpus_reason": first.reason}  # fmt: skip
        w.writerow(row)
    return out.getvalue()


def compare(
    corpus: Corpus, file: Path, seed: int, skip_stages: list[str]
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The second reviewer's decisions in FILE against the corpus's: the decision frozen in
    the row when there is one, else the corpus's present one."""
    rel, columns, rows, problems = read_table(corpus, file, CODE)
    if problems:
        return None, problems
    if not {"id", "decision"} <= set(columns):
        return None, [Problem(rel, CODE, "the file needs 'id' and 'decision' columns", 1, 1,
                              hint="start from `litcorpus screen audit-sample`")]  # fmt: skip
    firsts = _firsts(corpus, seed, skip_stages)
    reason_axis = corpus.taxonomy.axes.get(corpus.taxonomy.views.prisma.get("reason_axis", ""))
    codes = {v.code or v.id for v in reason_axis.values} if reason_axis else set()
    seen: dict[str, int] = {}
    judged: list[tuple[First, str, str, dict[str, str]]] = []
    for line, row in rows:
        rid, decision = row.get("id", "").strip(), row.get("decision", "").strip().lower()
        reason = row.get("reason", "").strip().upper() if decision == "exclude" else ""
        frozen = row.get("corpus_decision", "").strip().lower()
        first = (
            First(row.get("record", "").strip(), frozen, row.get("corpus_reason", "").strip())
            if frozen
            else firsts.get(rid)
        )
        if first is None:
            problems.append(Problem(rel, CODE, f"'{rid}' is no decided record of the corpus",
                                    line, 1, "id", "keep the ids the worksheet gave"))  # fmt: skip
        elif rid in seen:
            problems.append(Problem(rel, CODE, f"'{rid}' is decided twice (lines {seen[rid]} "
                                    f"and {line})", line, 1, "id"))  # fmt: skip
        elif decision not in DECISIONS or first.decision not in DECISIONS:
            field = "decision" if decision not in DECISIONS else "corpus_decision"
            problems.append(Problem(rel, CODE, f"{field} '{row.get(field, '')}' is not include "
                                    "or exclude", line, 1, field))  # fmt: skip
        elif decision == "exclude" and reason not in codes:
            known = f"codes: {', '.join(sorted(codes))}"
            problems.append(Problem(rel, CODE, f"reason '{reason}' is no exclusion reason's "
                                    "code", line, 1, "reason", known))  # fmt: skip
        else:
            seen[rid] = line
            judged.append((first, decision, reason, row))
    if not judged:
        return None, problems
    result = kappa([(f.decision, second) for f, second, _, _ in judged], DECISIONS)
    both = [(f.reason, why) for f, second, why, _ in judged if f.decision == second == "exclude"]
    conflicts = [
        {
            "id": row["id"].strip(),
            "record": first.record,
            "title": row.get("title", ""),
            "corpus": first.stratum,
            "second": f"{second} {why}".strip(),
            "resolution": row.get("resolution", "").strip(),
            "resolution_note": row.get("resolution_note", "").strip(),
        }
        for first, second, why, row in judged
        if second != first.decision
    ]
    strata = Counter(first.stratum for first, *_ in judged)
    result |= {
        "file": rel,
        "strata": dict(sorted(strata.items())),
        "reason_agreement": {
            "both_excluded": len(both),
            "same_reason": sum(a == b for a, b in both),
        },
        "conflicts": conflicts,
        "unresolved": sum(1 for c in conflicts if not c["resolution"]),
    }
    return result, problems


def audit_text(result: dict[str, Any]) -> str:
    ci = result["ci95"]
    lines = [
        f"Blind second screening of {result['records']} decided records ({result['file']})",
        f"kappa {result['kappa']} (95% CI {ci[0]} to {ci[1]}); observed agreement "
        f"{result['observed']}, chance {result['expected']}"
        if ci
        else "kappa undefined",
        f"same exclusion reason where both excluded: {result['reason_agreement']['same_reason']}"
        f" of {result['reason_agreement']['both_excluded']}",
        f"conflicts: {len(result['conflicts'])}, unresolved: {result['unresolved']}",
    ]
    for c in result["conflicts"]:
        settled = c["resolution"] or "unresolved"
        lines.append(f"  {c['record']}: corpus {c['corpus']}, second {c['second']} -> {settled}")
    return "\n".join(lines)
