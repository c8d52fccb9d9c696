"""The local store beside the queue (screening/.store/, git-ignored): each search's export as
it came, and the abstracts of the records it queued. Abstracts are others' prose: they help the
screen and its ranking on this machine, and the project commits none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

from surewrite.files import write_file
from surewrite.paths import below

from ..model.queue import STORE_DIR


class Store:
    def __init__(self, root: Path) -> None:
        self.root, self.dir = root, root / STORE_DIR

    def save_search(
        self,
        sid: str,
        name: str,
        raw: bytes,
        abstracts: dict[str, str],
        pages: dict[str, bytes] | None = None,
    ) -> None:
        """Keep search SID's export (or, for a saved search's run, its manifest and PAGES)
        and its queued records' abstracts (refused, before anything is written, when the
        store's path passes through a symbolic link)."""
        below(self.root, STORE_DIR)
        self.dir.mkdir(parents=True, exist_ok=True)
        ignore = self.dir / ".gitignore"
        if not ignore.exists():
            write_file(ignore, b"# others' prose: never committed\n*\n")
        write_file(self.dir / f"{sid}.raw", raw)
        if pages:
            (self.dir / f"{sid}.pages").mkdir(exist_ok=True)
            for page, data in pages.items():
                write_file(self.dir / f"{sid}.pages" / page, data)
        meta = {"search": sid, "file": name, "abstracts": abstracts}
        write_file(self.dir / f"{sid}.json", json.dumps(meta, ensure_ascii=False).encode())

    def abstracts(self) -> dict[str, str]:
        """Every stored abstract by queue id (an empty store, or a missing one: none)."""
        out: dict[str, str] = {}
        for file in sorted(self.dir.glob("S*.json")) if self.dir.is_dir() else []:
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
                out.update({str(k): str(v) for k, v in data.get("abstracts", {}).items()})
            except (OSError, ValueError, AttributeError):
                continue  # a damaged store costs abstracts, never a decision
        return out
