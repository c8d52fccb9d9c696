"""`litcorpus search add`: appends a saved search to saved-searches.yaml (the rest of the file
left byte for byte), checked to read back as the old list plus the new search."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import yaml

from surewrite.files import write_file
from surewrite.paths import below

from ..model.errors import CommandError
from ..model.saved import HEADER, SAVED_FILE, SERVICES, Saved, load_saved
from ..model.text import option_problem


def add_saved(
    root: Path, source: str, query: str, family: str | None, start: dt.date, families: list[str]
) -> Saved:
    """Save QUERY on SOURCE (FAMILY its query family) to be re-run from START on. Call it
    holding the corpus lock."""
    if source not in SERVICES:
        raise CommandError("search-refused", f"'{source}' has no API here", ", ".join(SERVICES))
    for option, value in (("--query", query), ("--family", family or "")):
        if (bad := option_problem(value)) is not None:
            raise CommandError("search-refused", f"{option} {bad}", usage=True)
    if not query.strip():
        raise CommandError("search-refused", "--query is empty", usage=True)
    if family is not None and family not in families:
        raise CommandError("search-refused", f"'{family}' is not a query family",
                           ", ".join(families), usage=True)  # fmt: skip
    saved = load_saved(root, families)
    if saved.problems:
        p = saved.problems[0]
        raise CommandError("search-refused", f"{p.path}:{p.line or 1}: {p.message}; fix it first")
    twin = next((s for s in saved.items.values() if (s.source, s.query) == (source, query)), None)
    if twin is not None:
        raise CommandError("search-refused", f"{twin.id} saves that query on {source} already")
    sid = f"R{1 + max((int(s[1:]) for s in saved.items), default=0):03d}"
    fields = {"id": sid, "source": source, "query": query, "from": start.isoformat()}
    if family:
        fields["family"] = family
    item = "".join(
        f"  {'- ' if i == 0 else '  '}{k}: {json.dumps(v, ensure_ascii=False)}\n"
        for i, (k, v) in enumerate(fields.items())
    )
    path = below(root, SAVED_FILE)
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    new = (text if text.endswith("\n") else text + "\n") + item
    listed = (yaml.safe_load(new) or {}).get("saved")
    if not isinstance(listed, list) or len(listed) != len(saved.items) + 1:
        raise CommandError(
            "search-refused",
            f"{SAVED_FILE} does not end in its 'saved:' list in block form; nothing was written",
        )
    write_file(path, new.encode("utf-8"))
    return Saved(sid, source, query, family, start)
