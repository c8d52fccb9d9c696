"""Decides whether an output path may be written, before anything is written.

An output folder may only replace an earlier output of the same tool and kind: the folder is
new, or empty, or holds a marker file (`.<tool>-output`) naming the tool, the kind and every
file the tool wrote there, and nothing else. It may never be, hold or lie above a folder the
caller protects (the repository root, its record folders, .git), nor lie inside a protected
folder or any .git. An output file may not be a link, a folder or a device, nor lie inside
.git or a protected folder, nor be one of the run's inputs, nor be a file that git tracks.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterable
from pathlib import Path

from .errors import OutputError


def marker_name(tool: str) -> str:
    return f".{tool}-output"


def marker_text(tool: str, kind: str, files: Iterable[str]) -> str:
    """The marker's content: '<tool> <kind>', then the relative path of every file written."""
    return "\n".join([f"{tool} {kind}", *sorted(files)]) + "\n"


def _absolute(path: Path) -> Path:
    """PATH made absolute with its folder's links resolved, the last part kept as written."""
    path = Path(os.path.abspath(path))
    return path.parent.resolve() / path.name


def _refuse(path: Path, why: str, hint: str | None = None) -> OutputError:
    return OutputError("output-refused", f"{path}: {why}", hint)


def _unlinked(target: Path, what: str) -> tuple[Path, os.stat_result | None]:
    """TARGET made absolute and its own status (None when absent); refused when it is a
    symbolic link, since writing would go where the link points."""
    real = _absolute(target)
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise _refuse(target, "is a symbolic link", f"give the real {what}, or a new path")
    return real, info


def _common_checks(path: Path, real: Path, no_inside: Iterable[Path], what: str) -> None:
    if not real.parent.is_dir():
        raise OutputError(
            "output-missing-folder",
            f"{path}: the folder {real.parent} does not exist",
            "create it first, or choose another path",
        )
    if ".git" in real.parts:
        raise _refuse(path, "lies inside a .git folder", f"write the {what} elsewhere")
    for folder in no_inside:
        folder = folder.resolve()
        if real.is_relative_to(folder):
            where = "is" if real == folder else "lies inside"
            raise _refuse(path, f"{where} {folder}, which holds records", "choose another path")


def check_dir_output(
    target: Path,
    tool: str,
    kind: str,
    keep: Iterable[Path] = (),
    no_inside: Iterable[Path] = (),
) -> Path:
    """Refuse TARGET as the output folder of TOOL's KIND (stats, site, ...) unless replacing it
    can only replace what TOOL wrote there; returns the path to write (absolute)."""
    real, info = _unlinked(target, "folder")
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise _refuse(target, "is a file, not a folder", "choose a folder for the output")
    _common_checks(target, real, no_inside, kind)
    for folder in keep:
        folder = folder.resolve()
        if real == folder or folder.is_relative_to(real):
            raise _refuse(
                target,
                f"would replace {folder}" if real == folder else f"holds {folder}",
                f"write the {kind} to a folder of its own, such as {folder / kind}",
            )
    if info is None:
        return real
    for name in (".git", "taxonomy.yaml"):
        if os.path.lexists(real / name):
            raise _refuse(target, f"holds {name}: it is a repository", "choose another folder")
    _check_marker(target, real, tool, kind)
    return real


def _check_marker(target: Path, real: Path, tool: str, kind: str) -> None:
    """An existing folder must be empty, or hold exactly what its marker lists."""
    marker = real / marker_name(tool)
    try:
        lines = marker.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, NotADirectoryError):
        lines = None
    except (OSError, UnicodeDecodeError) as exc:
        raise _refuse(target, f"its marker {marker.name} cannot be read ({exc})") from exc
    written = set(lines[1:]) if lines else set()
    for dirpath, dirnames, filenames in os.walk(real):
        here = Path(dirpath)
        links = [d for d in dirnames if (here / d).is_symlink()]
        for name in sorted([*filenames, *links]):
            rel = (here / name).relative_to(real).as_posix()
            if rel == marker.name:
                continue
            if lines is None:
                raise _refuse(
                    target,
                    f"holds files that {tool} did not write (such as {rel})",
                    "choose a new or empty folder (an output of an older version: remove it)",
                )
            if rel not in written:
                raise _refuse(
                    target,
                    f"{rel} was not written by {tool} {kind}",
                    "move it out of the folder first",
                )
    if lines is not None and lines[:1] != [f"{tool} {kind}"]:
        found = lines[0] if lines else "nothing"
        raise _refuse(target, f"holds the output of {found}, not of {tool} {kind}")


def check_file_output(
    target: Path,
    no_inside: Iterable[Path] = (),
    inputs: Iterable[Path] = (),
) -> Path:
    """Refuse TARGET as an output file when writing it could destroy what the tool did not
    write; returns the path to write (absolute)."""
    real, info = _unlinked(target, "file")
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise _refuse(target, "is a folder", "give a file name inside it")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _refuse(target, "is not a regular file (a pipe or a device)")
    _common_checks(target, real, no_inside, "file")
    for source in inputs:
        if real == source.resolve():
            raise _refuse(target, "is an input of this run", "write to another file")
    if info is not None and tracked(real):
        raise _refuse(target, "is a file under version control", "write to a new file")
    return real


def check_writable(path: Path, tree: bool = False) -> None:
    """Refuse (write-failed) before anything is written what the system would refuse: a file
    or folder PATH that is read-only, or, for a TREE, any folder in it (the old tree is removed
    after the swap). A folder must also let files be made and removed in it."""
    wanted = os.W_OK | (os.X_OK if path.is_dir() else 0)
    folders = [path]
    if tree:
        folders += [Path(d) / n for d, names, _ in os.walk(path) for n in names]
    for folder in folders:
        if not os.access(folder, wanted if folder == path else os.W_OK | os.X_OK):
            raise OutputError(
                "write-failed",
                f"cannot write {folder}: it is read-only; nothing was changed",
                "make it writable, or write elsewhere",
            )


def tracked(path: Path) -> bool:
    """Whether git tracks PATH (False where there is no git or no repository)."""
    try:
        run = subprocess.run(
            ["git", "-C", str(path.parent), "ls-files", "--error-unmatch", "--", path.name],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return run.returncode == 0


def below(root: Path, rel: str) -> Path:
    """ROOT/REL for a write, refused when REL leaves ROOT or any part of it below ROOT is a
    symbolic link (a committed link would carry the write wherever it points)."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts:
        raise _refuse(Path(rel), f"is not a path inside {root}")
    here = root
    for part in parts:
        here = here / part
        if here.is_symlink():
            raise _refuse(
                here,
                "is a symbolic link; nothing is written through one",
                "replace the link by the real folder or file",
            )
    return here
