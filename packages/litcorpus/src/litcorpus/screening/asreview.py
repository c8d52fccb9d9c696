"""ASReview LAB as the screen, for a team that prefers it: the queue out as an ASReview-ready
dataset (CSV or RIS; records already decided carry their label, which ASReview takes as prior
knowledge), and the labels of an ASReview LAB export back in as decisions.

Each exported record keeps its queue id in the `litcorpus_id` column (RIS: the ID tag), which
ASReview carries through to its export; a record whose id was lost is matched by DOI, arXiv id
or title. ASReview's labels are binary: an exclusion needs the reason and note the maintainer
gives for the whole import.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check.dedupe import normalize_title
from ..model.errors import CommandError
from ..model.queue import OPEN_STATES, QUEUE_FILE, Queue, Queued
from ..publish.export import ris_text

LABELS = ("asreview_label", "included", "label_included", "label")


def _row(q: Queued, abstract: str) -> dict[str, Any]:
    d = q.data
    ids = d.get("ids") or {}
    label = {"included": 1, "excluded": 0}.get(q.state, "")
    return {
        "litcorpus_id": q.id,
        "title": d.get("title", ""),
        "abstract": abstract,
        "authors": "; ".join(a for a in d.get("authors") or [] if a != "others"),
        "year": d.get("year") or "",
        "doi": ids.get("doi", ""),
        "url": d.get("url", ""),
        "included": label,
    }


def export_csv(queue: Queue, abstracts: dict[str, str]) -> bytes:
    rows = [
        _row(q, abstracts.get(q.id, "")) for q in queue.items.values() if q.state != "set_aside"
    ]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(_row(Queued({"id": ""}), "")), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _plain(v) for k, v in r.items()})
    return buf.getvalue().encode("utf-8")


def _plain(value: Any) -> Any:
    """A cell a spreadsheet shows as text (OWASP: no leading =, +, -, @, tab or return)."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def export_ris(queue: Queue, abstracts: dict[str, str]) -> bytes:
    entries = []
    for q in queue.items.values():
        if q.state == "set_aside":
            continue
        r = _row(q, abstracts.get(q.id, ""))
        entry: dict[str, Any] = {"type_of_reference": "JOUR", "id": q.id, "title": r["title"]}
        for key, value in (
            ("authors", [a for a in q.data.get("authors") or [] if a != "others"]),
            ("year", str(r["year"])),
            ("doi", r["doi"]),
            ("urls", [r["url"]] if r["url"] else []),
            ("abstract", r["abstract"]),
            ("notes", _label_note(r["included"])),
        ):
            if value:
                entry[key] = value
        entries.append(entry)
    return ris_text(entries).encode("utf-8")


def _label_note(label: Any) -> list[str]:
    """ASReview's own RIS note for a labelled record."""
    return [] if label == "" else ["ASReview_relevant" if label == 1 else "ASReview_irrelevant"]


@dataclass(slots=True)
class Labels:
    decisions: list[tuple[str, str]] = field(default_factory=list)  # (queue id, include|exclude)
    unmatched: list[str] = field(default_factory=list)
    unlabelled: int = 0
    # labels that contradict a decision the corpus already holds: listed, never applied
    conflicts: list[str] = field(default_factory=list)

    def sort(self, queue: Queue) -> list[tuple[str, str]]:
        """The decisions still to take (their records are open); a label against a record's
        recorded decision is a conflict for the maintainer."""
        todo = []
        for qid, decision in self.decisions:
            q = queue.items[qid]
            if q.state in OPEN_STATES:
                todo.append((qid, decision))
            elif q.state != f"{decision}d" and (
                q.state in ("included", "excluded") or decision == "include"
            ):
                self.conflicts.append(
                    f"{qid} is {q.state} ({q.data.get('record')}) but ASReview labels it "
                    f"{'relevant' if decision == 'include' else 'irrelevant'}"
                )
        return todo


def apply_labels(
    root: Path, todo: list[tuple[str, str]], reviewer: str, reason: str | None, note: str
) -> None:
    """Take every decision of TODO, all or none: a decision that is refused half way undoes
    the ones taken before it (the queue as it was, the records they wrote removed). Call it
    holding the corpus lock."""
    from ..model.corpus import load_corpus
    from ..publish.outputs import commit_changes
    from .decide import MissingValue, decide

    queue_file = root / QUEUE_FILE
    before = queue_file.read_bytes() if queue_file.exists() else b""
    written: list[Path] = []
    try:
        for qid, decision in todo:
            out = decision == "exclude"
            done = decide(
                load_corpus(root), qid, decision, reviewer, reason if out else None,
                note if out else "",
            )  # fmt: skip
            if done.record:
                written.append(root / done.record)
    except BaseException as exc:
        commit_changes(root, {QUEUE_FILE: before})
        for path in written:
            path.unlink(missing_ok=True)
        if isinstance(exc, MissingValue):
            raise CommandError(
                "decision-refused",
                f"{exc.message}; no label was taken",
                f"decide it alone (litcorpus screen decide {qid} {decision} --{exc.option} "
                "...), then import the labels again",
            ) from None
        raise


def read_labels(data: str, name: str, queue: Queue) -> Labels:
    """The include and exclude labels of an ASReview LAB export (CSV), matched to the queue."""
    rows = csv.DictReader(io.StringIO(data, newline=""))
    fields = {f.strip().lower(): f for f in rows.fieldnames or []}
    label = next((fields[c] for c in LABELS if c in fields), None)
    if label is None or "title" not in fields:
        raise CommandError(
            "import-invalid",
            f"{name}:1: not an ASReview export: it needs a title and a label column "
            f"({', '.join(LABELS)})",
        )
    by_id = {q.id: q for q in queue.items.values()}
    by_key: dict[tuple[str, str], Queued] = {}
    for q in queue.items.values():
        for s, v in (q.data.get("ids") or {}).items():
            by_key[(s, str(v).lower())] = q
        by_key[("title", normalize_title(str(q.data.get("title", ""))))] = q
    out = Labels()
    for row in rows:
        raw = (row.get(label) or "").strip()
        if raw in ("", "-1", "nan"):
            out.unlabelled += 1
            continue
        if raw not in ("0", "1", "0.0", "1.0"):
            raise CommandError(
                "import-invalid", f"{name}:{rows.line_num}: label '{raw}' is not 0 or 1"
            )
        doi = (row.get(fields.get("doi", "")) or "").strip().lower()
        title = row.get(fields["title"]) or ""
        hit = (
            by_id.get((row.get(fields.get("litcorpus_id", "")) or "").strip())
            or by_key.get(("doi", doi))
            or by_key.get(("title", normalize_title(title)))
        )
        if hit is None:
            out.unmatched.append(f"line {rows.line_num}: {title[:60]!r}")
            continue
        out.decisions.append((hit.id, "include" if raw.startswith("1") else "exclude"))
    return out
