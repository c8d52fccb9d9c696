"""Changes several files as one: all of them, or, when the run is killed before its commit
point, none. A redo log: every new content is first written to a temporary file beside its
target and flushed; then the journal naming each target, its temporary file and its digest is
placed (the commit point); then each temporary file takes its target's name and the journal
is removed. A run killed after the commit point is finished by the next one (`recover`), which
places the temporary files still waiting; one killed before it changed nothing.

The journal is trusted only as far as the caller allows: every path it names must be one that
`allowed` accepts (relative to the root, inside it, no link), its temporary file must sit beside
its target under the name this module gives, and its digest must match. Anything else refuses
the recovery, and nothing is moved or deleted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from .errors import OutputError, os_failure
from .files import _temporary, write_file
from .paths import below

Allowed = Callable[[str], bool]
_TEMP = re.compile(r"\.(?P<name>[^/]+)\.[A-Za-z0-9_]+\.tmp\Z")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def commit(root: Path, changes: dict[str, bytes], journal: Path, new: set[str]) -> None:
    """Write each of CHANGES (a path relative to ROOT: its new bytes) as one change. Paths in
    NEW must not exist yet (they are created, never replaced)."""
    temps: dict[str, Path] = {}
    for rel in changes:
        below(root, rel)
    try:
        for rel in new:
            if (root / rel).exists():
                raise OutputError(
                    "output-refused",
                    f"{rel} exists already; nothing was written",
                    "another run wrote it: run again",
                )
        for rel, data in changes.items():
            temps[rel] = _temporary(root / rel, data)
        entries = [
            {"path": rel, "temp": temps[rel].name, "sha256": _digest(data), "new": rel in new}
            for rel, data in changes.items()
        ]
        write_file(journal, json.dumps({"transaction": entries}).encode())
    except BaseException as exc:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise os_failure(exc, journal) from exc
        raise
    _place(root, entries)
    journal.unlink(missing_ok=True)


def _place(root: Path, entries: list[dict[str, object]]) -> None:
    for e in entries:
        target = root / str(e["path"])
        tmp = target.parent / str(e["temp"])
        if not tmp.exists():
            continue  # placed before the run was killed
        try:
            if e["new"]:
                if target.exists():
                    tmp.unlink()
                    continue
                os.link(tmp, target)
                tmp.unlink()
            else:
                os.replace(tmp, target)
        except OSError as exc:
            raise os_failure(exc, target) from exc


def recover(root: Path, journal: Path, allowed: Allowed) -> list[str]:
    """Finish a commit that was killed after its commit point; returns the paths it placed.
    A journal that names anything ALLOWED refuses, or that does not match its files, is
    refused and left in place with everything it names."""
    try:
        raw = journal.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise os_failure(exc, journal) from exc
    try:
        entries = json.loads(raw)["transaction"]
        assert isinstance(entries, list)
    except (ValueError, KeyError, TypeError, AssertionError):
        raise _refused(journal, "it is not a transaction this tool writes") from None
    for e in entries:
        if not (
            isinstance(e, dict)
            and set(e) == {"path", "temp", "sha256", "new"}
            and isinstance(e["path"], str)
            and allowed(e["path"])
            and not (root / e["path"]).is_symlink()
            and isinstance(e["temp"], str)
            and (m := _TEMP.fullmatch(e["temp"])) is not None
            and m["name"] == e["path"].rsplit("/", 1)[-1]
        ):
            raise _refused(journal, f"it names {str(e)[:120]}, which no transaction writes")
        tmp = (root / e["path"]).parent / e["temp"]
        if tmp.exists() and (tmp.is_symlink() or _digest(tmp.read_bytes()) != e["sha256"]):
            raise _refused(journal, f"{e['temp']} does not hold what it lists")
    _place(root, entries)
    journal.unlink(missing_ok=True)
    return [str(e["path"]) for e in entries]


def _refused(journal: Path, why: str) -> OutputError:
    return OutputError(
        "journal-refused",
        f"{journal} was not used: {why}; nothing was moved or deleted",
        "inspect it, then remove it by hand",
    )
