"""Writes files so that a failure changes nothing: each goes to a temporary file beside its
target, then takes the target's name in one rename. A failure at any point (a full disk,
a file-size limit, an interrupt) removes the temporary file. Permissions follow the umask.
A lock file serialises the runs that add to the same folder; a journal lets the next run undo
new files a killed run placed, and is believed only as far as it names what that run writes.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import hashlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError, os_failure
from .paths import tracked


def umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temporary(target: Path, data: bytes, sync: bool = True) -> Path:
    """DATA in a new hidden file beside TARGET, with the umask's permissions, flushed to disk
    unless not SYNC."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~umask())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _leftovers(target: Path) -> list[Path]:
    """Temporary files an earlier, killed write of TARGET left beside it."""
    return list(target.parent.glob(f".{glob.escape(target.name)}.*.tmp"))


def write_file(target: Path, data: bytes, clean: bool = False, sync: bool = True) -> None:
    """Replace TARGET by DATA at once: readers see the old file or the new one, never a part.
    CLEAN (for a caller that holds the lock on TARGET) first removes what killed runs left.
    Not SYNC: the data is not flushed to disk first, for files that a killed process must not
    tear but that can be made again should the machine fail (a run's parts)."""
    try:
        for leftover in _leftovers(target) if clean else []:
            leftover.unlink(missing_ok=True)
        tmp = _temporary(target, data, sync)
        try:
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise os_failure(exc, target) from exc


@contextmanager
def writing(target: Path) -> Iterator[Path]:
    """A new hidden file beside TARGET for a write too large to hold in memory (a stream): it
    takes TARGET's name, flushed to disk, when the block ends, and is removed if it fails."""
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
    except OSError as exc:
        raise os_failure(exc, target) from exc
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, target)
    except OSError as exc:
        raise os_failure(exc, target) from exc
    finally:
        tmp.unlink(missing_ok=True)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _refused(journal: Path, why: str) -> OutputError:
    return OutputError(
        "journal-refused",
        f"{journal} {why}; nothing was removed",
        "look at the files it lists: if they are yours, delete the journal, then run again",
    )


def _journal_entries(journal: Path) -> list[tuple[Path, str]]:
    """What JOURNAL lists, (file, sha256), each file below the journal's folder; refused
    (OutputError) unless it is a journal that write_new_files writes."""
    root = journal.parent
    try:
        entries = json.loads(journal.read_bytes())
    except FileNotFoundError:  # killed before the journal was placed: nothing was placed
        return []
    except (OSError, ValueError) as exc:
        raise _refused(journal, f"cannot be read as a journal ({exc})") from exc
    if not isinstance(entries, list):
        raise _refused(journal, "is not a list of files")
    out = []
    for item in entries:
        if not (
            isinstance(item, dict)
            and set(item) == {"path", "sha256"}
            and isinstance(item["path"], str)
            and isinstance(item["sha256"], str)
            and re.fullmatch(r"[0-9a-f]{64}", item["sha256"])
        ):
            raise _refused(journal, f"holds {str(item)[:80]!r}, which is not a file and its hash")
        rel = Path(item["path"])
        if rel.is_absolute() and rel.is_relative_to(root):  # written by an earlier version
            rel = rel.relative_to(root)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise _refused(journal, f"names {item['path'][:200]}, outside its folder")
        out.append((root / rel, item["sha256"]))
    return out


def recover_new_files(journal: Path, may_remove: Callable[[Path], bool]) -> list[Path]:
    """Undo a write_new_files that was killed before it finished: remove the files it placed
    (those still holding what it wrote) and its temporary files; returns what was removed.
    The journal is trusted only as far as it names files that MAY_REMOVE allows (those the
    writer could have written), each a regular file that no git repository tracks: otherwise
    it is refused (OutputError journal-refused), and nothing is removed, the journal included."""
    entries = _journal_entries(journal)
    removed = _leftovers(journal)  # a run killed while it wrote the journal itself
    for target, _ in entries:
        if not may_remove(target):
            raise _refused(journal, f"names {target}, a file its run could not have written")
    for target, sha256 in entries:
        removed += _leftovers(target)
        try:
            info = os.lstat(target)
        except FileNotFoundError:
            continue  # not placed yet when the run was killed
        except OSError as exc:
            raise os_failure(exc, target) from exc
        if not stat.S_ISREG(info.st_mode) or tracked(target):
            raise _refused(journal, f"names {target}, which is a link, a folder or committed")
        if _digest(target.read_bytes()) == sha256:
            removed.append(target)
    for path in removed:
        path.unlink(missing_ok=True)
    journal.unlink(missing_ok=True)
    return removed


def write_new_files(files: dict[Path, bytes], journal: Path) -> None:
    """Create every file of FILES, all or none, never replacing one that exists (even one
    created by another run meanwhile). JOURNAL lists them while they are placed, so that
    recover_new_files can undo a run killed half way (call it first, under the same lock)."""
    temps: dict[Path, Path] = {}
    placed: list[Path] = []
    try:
        root = journal.parent
        listing = [
            {"path": os.path.relpath(t, root), "sha256": _digest(d)} for t, d in files.items()
        ]
        write_file(journal, json.dumps(listing).encode())
        for target, data in files.items():
            temps[target] = _temporary(target, data)
        for target, tmp in temps.items():
            os.link(tmp, target)  # fails if TARGET exists: no check-then-write race
            placed.append(target)
    except BaseException as exc:
        for target in placed:
            target.unlink(missing_ok=True)
        if isinstance(exc, FileExistsError):
            raise OutputError(
                "output-refused",
                f"{exc.filename2 or exc.filename} appeared while writing; nothing was written",
                "another run added it: run again",
            ) from exc
        if isinstance(exc, OSError):
            raise os_failure(exc, next(iter(files), "")) from exc
        raise
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
        journal.unlink(missing_ok=True)  # only a killed run leaves it


@contextmanager
def locked(lock_file: Path, wait: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on LOCK_FILE (created if absent; a folder is locked as it is),
    waiting up to WAIT seconds for another run to release it. The lock ends with the process,
    however it ends."""
    try:
        if lock_file.is_dir():
            fd = os.open(lock_file, os.O_RDONLY | os.O_DIRECTORY)
        else:
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o666 & ~umask())
    except OSError as exc:
        raise os_failure(exc, lock_file) from exc
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise os_failure(exc, lock_file) from exc
                if time.monotonic() >= deadline:
                    raise OutputError(
                        "locked",
                        f"another run holds {lock_file} for more than {wait:.0f} s",
                        "wait for it to finish, then run again",
                    ) from exc
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)
