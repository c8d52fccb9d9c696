"""Replaces a whole output folder at once: an interrupted run leaves the old tree or the new
one, never a mix, and never a tree it was not allowed to replace (see paths).

The new tree is built in a hidden sibling folder and swapped in with one rename
(renameat2 RENAME_EXCHANGE where the kernel has it); unchanged files are hard-linked from the
old tree rather than rewritten. The tree carries a marker listing every file in it, which is
what lets the next run replace it. Leftovers of an interrupted run are cleaned, or restored,
on the next one. Folders and files follow the umask.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .errors import os_failure
from .files import umask
from .paths import check_dir_output, marker_name, marker_text

Progress = Callable[[str, int, int], None]
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths; False where the platform cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


def recover(target: Path) -> None:
    """Undo what an interrupted swap left behind."""
    for leftover in target.parent.glob(f".{target.name}.old-*"):
        if not target.exists():
            leftover.rename(target)
        else:
            shutil.rmtree(leftover, ignore_errors=True)
    for leftover in target.parent.glob(f".{target.name}.new-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def write_tree(
    target: Path,
    files: Mapping[str, bytes] | Iterable[tuple[str, bytes]],
    tool: str,
    kind: str,
    keep: Iterable[Path] = (),
    no_inside: Iterable[Path] = (),
    progress: Progress | None = None,
) -> tuple[int, int]:
    """Replace folder TARGET by exactly FILES ({relative path: content}, or such pairs as they
    are made, so a large tree never sits in memory whole) and the marker of TOOL's KIND;
    returns how many files the tree holds and how many were written. Refuses (OutputError)
    a target that check_dir_output refuses. A file whose content is unchanged is not
    rewritten: the new tree links to the old file (same inode, same modification time)."""
    target = check_dir_output(target, tool, kind, keep, no_inside)
    try:
        recover(target)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    except OSError as exc:
        raise os_failure(exc, target) from exc
    pairs = sorted(files.items()) if isinstance(files, Mapping) else files
    total = len(files) if isinstance(files, Mapping) else 0
    seen: set[str] = set()
    written = 0
    try:
        os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes it private; outputs are for readers
        for done, (rel, data) in enumerate(pairs, start=1):
            if rel in seen:
                raise ValueError(f"{rel} is produced twice")
            if rel == marker_name(tool):
                raise ValueError(f"{rel} is the marker's name")
            seen.add(rel)
            if progress and total:
                progress("writing files", done, total)
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            old = target / rel
            if _same(old, data):
                try:
                    os.link(old, path)
                    continue
                except OSError:
                    pass  # no hard links here: write the file
            path.write_bytes(data)
            written += 1
        (tmp / marker_name(tool)).write_text(marker_text(tool, kind, seen), encoding="utf-8")
        if not target.exists():
            tmp.rename(target)
        elif _exchange(tmp, target):
            shutil.rmtree(tmp)
        else:
            old_tree = target.with_name(f".{target.name}.old-{os.getpid()}")
            target.rename(old_tree)
            tmp.rename(target)
            shutil.rmtree(old_tree)
    except OSError as exc:
        raise os_failure(exc, target) from exc
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return len(seen), written


def read_tree(target: Path) -> dict[str, bytes]:
    """Every file below TARGET as {relative path: content}."""
    if not target.is_dir():
        return {}
    return {
        p.relative_to(target).as_posix(): p.read_bytes()
        for p in sorted(target.rglob("*"))
        if p.is_file()
    }


def stale(target: Path, files: dict[str, bytes], tool: str, kind: str) -> list[str]:
    """Paths that differ between TARGET on disk and FILES with their marker: changed, missing
    or extra."""
    expected = {**files, marker_name(tool): marker_text(tool, kind, files).encode()}
    current = read_tree(target)
    return sorted(
        rel for rel in current.keys() | expected.keys() if current.get(rel) != expected.get(rel)
    )
