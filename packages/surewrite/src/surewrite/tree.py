"""Replaces a whole output folder at once: an interrupted run leaves the old tree or the new
one, never a mix, and never a tree it was not allowed to replace (see paths).

The new tree is built in a hidden sibling folder and swapped in with one rename
(renameat2 RENAME_EXCHANGE where the kernel has it); unchanged files are hard-linked from the
old tree rather than rewritten. The tree carries a marker listing every file in it, which is
what lets the next run replace it, and what tells a whole tree from a damaged one (`whole`).
Runs that write beside one another take turns: each holds a lock on the folder that holds the
target for its whole write, so the leftovers it cleans (or restores) are those of killed runs
only, never the temporary tree of a run still writing. Before the swap, the new tree must hold
every file it was given. Folders and files follow the umask.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .errors import OutputError, os_failure
from .files import locked, umask
from .paths import check_dir_output, check_writable, marker_name, marker_text

Progress = Callable[[str, int, int], None]
_RENAME_EXCHANGE = 2
TREE_WAIT = 900.0  # seconds a write waits for another one beside it to end


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


def _discard(tree: Path) -> None:
    """Remove TREE, making its read-only folders writable first when needed; what cannot be
    removed stays, for the next run to clean (it is never an error: the swap is done)."""

    def retry(function: Callable[..., object], path: str, _: object) -> None:
        try:
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
            function(path)
        except OSError:
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(tree, onexc=retry)
    else:
        shutil.rmtree(tree, onerror=retry)


def recover(target: Path) -> None:
    """Undo what an interrupted swap left behind (the caller holds the folder's lock)."""
    for leftover in target.parent.glob(f".{target.name}.old-*"):
        if not target.exists():
            leftover.rename(target)
        else:
            _discard(leftover)
    for leftover in target.parent.glob(f".{target.name}.new-*"):
        _discard(leftover)


def check_tree(
    target: Path, tool: str, kind: str, keep: Iterable[Path] = (), no_inside: Iterable[Path] = ()
) -> Path:
    """Refuse TARGET as TOOL's KIND output folder before anything is written: a folder
    check_dir_output refuses, or one the system would not let the swap replace (the folder
    that holds it, or it or a folder in it, read-only). Returns the path to write."""
    real = check_dir_output(target, tool, kind, keep, no_inside)
    check_writable(real.parent)
    if real.is_dir():
        check_writable(real, tree=True)
    return real


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _check_relative(target: Path, rel: str) -> None:
    """Refuse a file name that would leave the tree (whatever produced it: an id that names a
    file is checked before, and this is the last line)."""
    parts = rel.split("/")
    if rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
        raise OutputError(
            "output-refused",
            f"{target}: the file name {rel[:200]!r} would leave the folder; nothing was written",
            "a file of an output is a plain relative path",
        )


def _files_below(folder: Path) -> set[str]:
    out: set[str] = set()
    for dirpath, _, filenames in os.walk(folder):
        base = Path(dirpath).relative_to(folder)
        out.update((base / name).as_posix() for name in filenames)
    return out


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
    a target that check_tree refuses. A file whose content is unchanged is not rewritten: the
    new tree links to the old file (same inode, same modification time)."""
    target = check_tree(target, tool, kind, keep, no_inside)
    with locked(target.parent, TREE_WAIT):
        return _write_locked(target, files, tool, kind, progress)


def _write_locked(
    target: Path,
    files: Mapping[str, bytes] | Iterable[tuple[str, bytes]],
    tool: str,
    kind: str,
    progress: Progress | None,
) -> tuple[int, int]:
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
            _check_relative(target, rel)
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
        if _files_below(tmp) != {*seen, marker_name(tool)}:  # never publish a damaged tree
            raise OutputError(
                "write-failed",
                f"cannot write {target}: its new tree lost files while it was written; "
                "nothing was changed",
                "was the folder's temporary tree removed by hand? run again",
            )
        if not target.exists():
            tmp.rename(target)
        elif _exchange(tmp, target):
            _discard(tmp)  # the old tree, now
        else:
            old_tree = target.with_name(f".{target.name}.old-{os.getpid()}")
            target.rename(old_tree)
            tmp.rename(target)
            _discard(old_tree)
    except OSError as exc:
        raise os_failure(exc, target) from exc
    finally:
        if tmp.exists():
            _discard(tmp)
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


def whole(target: Path, tool: str, kind: str) -> bool:
    """Whether TARGET holds exactly the files its marker lists, as TOOL's KIND wrote it: no
    file missing, none added."""
    try:
        lines = (target / marker_name(tool)).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    if lines[:1] != [f"{tool} {kind}"]:
        return False
    return _files_below(target) == {*lines[1:], marker_name(tool)}


def stale(target: Path, files: dict[str, bytes], tool: str, kind: str) -> list[str]:
    """Paths that differ between TARGET on disk and FILES with their marker: changed, missing
    or extra."""
    expected = {**files, marker_name(tool): marker_text(tool, kind, files).encode()}
    current = read_tree(target)
    return sorted(
        rel for rel in current.keys() | expected.keys() if current.get(rel) != expected.get(rel)
    )
