"""What a change does to the survey: entries added, removed and retagged, counts that moved,
gap-table cells that changed state, and claims that flipped, between a git ref and the
working tree. Reads both corpora (the old one through `git archive`); returns a dict, rendered
as text, JSON or a Markdown pull-request comment.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from ..analysis.result import analyse
from ..model.corpus import Corpus, load_corpus
from ..model.errors import CommandError


class DiffError(CommandError):
    """The ref cannot be read."""


def _git(root: Path, *args: str) -> bytes:
    run = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, check=True, timeout=120
    )
    return run.stdout


def corpus_at(root: Path, ref: str, into: Path) -> Corpus:
    """The corpus as committed at REF, extracted below INTO."""
    if ref.startswith("-") or not ref.strip():
        raise DiffError(
            "bad-ref", f"'{ref}' is not a git ref", "name a branch, tag or commit", usage=True
        )
    try:
        commit = _git(root, "rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}")
        tar = _git(root, "archive", "--format=tar", commit.decode().strip())
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        detail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace").strip()
        raise DiffError(
            "bad-ref", f"cannot read git ref '{ref}': {detail or 'no such commit'}"
        ) from exc
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return load_corpus(into)


def _records(corpus: Corpus) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r.kind, r.stem): r.data for r in corpus}


def record_changes(old: Corpus, new: Corpus) -> dict[str, Any]:
    """Records added and removed, and each tag that changed: {added, removed, retagged}, a
    retag being {kind, key, axis, old, new}."""
    before, after = _records(old), _records(new)
    axes = {kind: [a.id for a in new.taxonomy.axes_for(kind)] for kind in new.taxonomy.kinds}
    retagged = [
        {"kind": kind, "key": key, "axis": axis, "old": before[kind, key].get(axis),
         "new": after[kind, key].get(axis)}
        for kind, key in sorted(before.keys() & after.keys())
        for axis in axes.get(kind, [])
        if before[kind, key].get(axis) != after[kind, key].get(axis)
    ]  # fmt: skip
    return {
        "added": [{"kind": k, "key": s} for k, s in sorted(after.keys() - before.keys())],
        "removed": [{"kind": k, "key": s} for k, s in sorted(before.keys() - after.keys())],
        "retagged": retagged,
    }


def compare(old: Corpus, new: Corpus) -> dict[str, Any]:
    before, after = _records(old), _records(new)
    changed = []
    for ident in sorted(before.keys() & after.keys()):
        a, b = before[ident], after[ident]
        fields = [
            {"field": f, "old": a.get(f), "new": b.get(f)}
            for f in sorted(a.keys() | b.keys())
            if a.get(f) != b.get(f)
        ]
        if fields:
            changed.append({"kind": ident[0], "key": ident[1], "fields": fields})
    s_old, s_new = (analyse(c, stats_if_invalid=True).stats or {} for c in (old, new))
    counts = []
    for axis in sorted(s_old["counts"].keys() | s_new["counts"].keys()):
        o, n = s_old["counts"].get(axis, {}), s_new["counts"].get(axis, {})
        for value in sorted(o.keys() | n.keys()):
            if o.get(value, 0) != n.get(value, 0):
                counts.append(
                    {"axis": axis, "value": value, "old": o.get(value, 0), "new": n.get(value, 0)}
                )
    cells = []
    old_gaps = {g["id"]: g for g in s_old["gaps"]}
    for gap in s_new["gaps"]:
        was = {(c["row"], c["col"]): c for c in old_gaps.get(gap["id"], {}).get("cells", [])}
        for c in gap["cells"]:
            prev = was.get((c["row"], c["col"]))
            if prev is None or prev["state"] != c["state"] or prev["count"] != c["count"]:
                cells.append(
                    {
                        "gap": gap["id"],
                        "row": c["row"],
                        "col": c["col"],
                        "old_state": prev["state"] if prev else None,
                        "new_state": c["state"],
                        "old": prev["count"] if prev else 0,
                        "new": c["count"],
                    }
                )
    old_claims = {c["id"]: c for c in s_old["claims"]}
    claims = [
        {
            "id": c["id"],
            "text": c["text"],
            "old": old_claims[c["id"]]["held"],
            "new": c["held"],
            "actual": c["actual"],
        }
        for c in s_new["claims"]
        if c["id"] in old_claims and old_claims[c["id"]]["held"] != c["held"]
    ]
    records = record_changes(old, new)
    return {
        "added": records["added"],
        "removed": records["removed"],
        "changed": changed,
        "counts": counts,
        "cells": cells,
        "claims": claims,
        "corpus": {"old": s_old["corpus"], "new": s_new["corpus"]},
    }


def diff(root: Path, ref: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="litcorpus-diff-") as tmp:
        result = compare(corpus_at(root, ref, Path(tmp)), load_corpus(root))
    result["ref"] = ref
    return result


def _v(value: Any) -> str:
    if value is None:
        return "(none)"
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def to_text(d: dict[str, Any]) -> str:
    lines = [
        f"Changes since {d['ref']}: {len(d['added'])} added, {len(d['removed'])} removed, "
        f"{len(d['changed'])} changed"
    ]
    lines += [f"  + {a['kind']} {a['key']}" for a in d["added"]]
    lines += [f"  - {r['kind']} {r['key']}" for r in d["removed"]]
    for c in d["changed"]:
        lines.append(f"  ~ {c['kind']} {c['key']}")
        lines += [
            f"      {f['field']}: {_clip(_v(f['old']))} -> {_clip(_v(f['new']))}"
            for f in c["fields"]
        ]
    if d["counts"]:
        lines.append("Counts:")
        lines += [f"  {c['axis']}={c['value']}: {c['old']} -> {c['new']}" for c in d["counts"]]
    if d["cells"]:
        lines.append("Gap-table cells:")
        lines += [
            f"  {c['gap']} [{c['row']} x {c['col']}]: {c['old_state']} ({c['old']}) -> "
            f"{c['new_state']} ({c['new']})"
            for c in d["cells"]
        ]
    if d["claims"]:
        lines.append("Claims that flipped:")
        lines += [
            f"  {c['id']}: {'held' if c['old'] else 'BROKEN'} -> "
            f"{'held' if c['new'] else 'BROKEN'} ({c['actual']})"
            for c in d["claims"]
        ]
    if not any(d[k] for k in ("added", "removed", "changed", "counts", "cells", "claims")):
        lines.append("No change to entries, counts, gap tables or claims.")
    return "\n".join(lines)


def to_markdown(d: dict[str, Any]) -> str:
    out = [
        f"### Corpus changes since `{d['ref']}`",
        "",
        f"**{len(d['added'])}** added, **{len(d['removed'])}** removed, "
        f"**{len(d['changed'])}** retagged or edited.",
        "",
    ]
    for title, rows in (("Added", d["added"]), ("Removed", d["removed"])):
        if rows:
            out += [f"**{title}:** " + ", ".join(f"`{r['key']}`" for r in rows), ""]
    if d["changed"]:
        out += ["| entry | field | before | after |", "|---|---|---|---|"]
        out += [
            f"| `{c['key']}` | {f['field']} | {_clip(_v(f['old'])).replace('|', '/')} | "
            f"{_clip(_v(f['new'])).replace('|', '/')} |"
            for c in d["changed"]
            for f in c["fields"]
        ]
        out.append("")
    if d["counts"]:
        out += ["| axis | value | before | after |", "|---|---|---:|---:|"]
        out += [f"| {c['axis']} | {c['value']} | {c['old']} | {c['new']} |" for c in d["counts"]]
        out.append("")
    if d["cells"]:
        out += ["| gap table | cell | before | after |", "|---|---|---|---|"]
        out += [
            f"| {c['gap']} | {c['row']} x {c['col']} | {c['old_state']} ({c['old']}) | "
            f"{c['new_state']} ({c['new']}) |"
            for c in d["cells"]
        ]
        out.append("")
    if d["claims"]:
        out += ["**Claims that flipped:**", ""]
        out += [
            f"- `{c['id']}`: {'held' if c['old'] else 'broken'} → "
            f"{'held' if c['new'] else '**broken**'}: {c['text']} ({c['actual']})"
            for c in d["claims"]
        ]
    elif not any(d[k] for k in ("added", "removed", "changed", "counts", "cells")):
        out.append("No change to entries, counts, gap tables or claims.")
    return "\n".join(out).rstrip() + "\n"
