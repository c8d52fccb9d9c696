"""Writes files so that a failure changes nothing: each goes to a temporary file beside its
target, then takes the target's name in one rename. A failure at any point (a full disk,
a file-size limit, an interrupt) removes the temporary file. Permissions follow the umask.
A lock file serialises the runs that add to the same folder.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError, os_failure


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


def recover_new_files(journal: Path) -> list[Path]:
    """Undo a write_new_files that was killed before it finished: remove the files it placed
    (those still holding what it wrote) and its temporary files; returns what was removed."""
    removed = _leftovers(journal)  # a run killed while it wrote the journal itself
    try:
        entries = json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no journal (killed before it was placed), or a torn one
        entries = []
    for item in entries if isinstance(entries, list) else []:
        target = Path(item["path"])
        removed += _leftovers(target)
        try:
            if _digest(target.read_bytes()) == item["sha256"]:
                removed.append(target)
        except OSError:
            pass
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
        listing = [{"path": str(t), "sha256": _digest(d)} for t, d in files.items()]
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
    """Hold an exclusive lock on LOCK_FILE (created if absent), waiting up to WAIT seconds for
    another run to release it. The lock ends with the process, however it ends."""
    try:
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
