"""Writes that lose nothing: a full disk, two runs at once, and the permissions of outputs."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from corpusfixtures import mini_root_fixture  # noqa: F401 (the mini_root fixture)
from surewrite import files
from surewrite.errors import OutputError

BIB = Path(__file__).resolve().parent / "fixtures" / "bibtex" / "good.bib"


def _full_disk(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """Every write of more than AFTER bytes to a temporary file fails with ENOSPC."""
    real = os.fdopen

    class Full:
        def __init__(self, f: object) -> None:
            self.f = f

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()  # type: ignore[attr-defined]

        def write(self, data: bytes) -> int:
            if len(data) > after:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return self.f.write(data)  # type: ignore[attr-defined,no-any-return]

        def __getattr__(self, name: str) -> object:
            return getattr(self.f, name)

    monkeypatch.setattr(files.os, "fdopen", lambda fd, mode: Full(real(fd, mode)))


def test_a_full_disk_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "README.md"
    target.write_text("old\n")
    _full_disk(monkeypatch, after=10)
    with pytest.raises(OutputError) as caught:
        files.write_file(target, b"a much longer new text\n")
    assert caught.value.code == "write-failed" and "No space left" in str(caught.value)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]


def test_a_full_disk_adds_no_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second of three files hits the full disk: none is written, nothing is left."""
    journal = tmp_path / ".journal"
    new = {tmp_path / "a.yaml": b"a\n", tmp_path / "b.yaml": b"b" * 100, tmp_path / "c.yaml": b"c"}
    _full_disk(monkeypatch, after=50)
    with pytest.raises(OutputError):
        files.write_new_files(new, journal)
    assert list(tmp_path.iterdir()) == []


def _anything(path: Path) -> bool:
    return True


def test_a_killed_add_is_undone_from_its_journal(tmp_path: Path) -> None:
    """What a journal lists is removed only while it holds what the killed run wrote; paths
    are relative to the journal's folder (an earlier version wrote them absolute)."""
    placed, edited, absolute = tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "c.yaml"
    placed.write_bytes(b"a\n")
    edited.write_bytes(b"someone's own text\n")
    absolute.write_bytes(b"c\n")
    (tmp_path / ".a.yaml.x1.tmp").write_bytes(b"a")
    journal = tmp_path / ".journal"
    listing = [
        {"path": "a.yaml", "sha256": files._digest(b"a\n")},
        {"path": "b.yaml", "sha256": files._digest(b"b\n")},
        {"path": str(absolute), "sha256": files._digest(b"c\n")},
    ]
    files.write_file(journal, json.dumps(listing).encode())
    (tmp_path / "..journal.x2.tmp").write_bytes(b"[")  # killed while writing the journal
    files.recover_new_files(journal, _anything)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.yaml"]


def test_a_run_killed_before_its_journal_was_placed_leaves_nothing(tmp_path: Path) -> None:
    """Killed while writing the journal: only the journal's temporary file is there."""
    journal = tmp_path / ".journal"
    (tmp_path / "..journal.x3.tmp").write_bytes(b'[{"path"')
    (tmp_path / "keep.yaml").write_bytes(b"mine\n")
    assert [p.name for p in files.recover_new_files(journal, _anything)] == ["..journal.x3.tmp"]
    assert [p.name for p in tmp_path.iterdir()] == ["keep.yaml"]


@pytest.mark.parametrize(
    "listing",
    [
        [{"path": "../outside.yaml"}],  # no hash: an earlier version ended in a KeyError
        [{"path": "../outside.yaml", "sha256": "0" * 64}],
        [{"path": "/etc/hostname", "sha256": "0" * 64}],
        [{"path": "papers/a.yaml", "sha256": "0" * 64, "more": 1}],
        ["papers/a.yaml"],
        {"path": "papers/a.yaml"},
    ],
    ids=["no-hash", "dotdot", "absolute-outside", "extra-field", "not-a-mapping", "not-a-list"],
)
def test_a_journal_that_no_run_wrote_is_refused(tmp_path: Path, listing: object) -> None:
    """A journal of any other shape, or naming a path outside its folder, removes nothing and
    stays where it is."""
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.yaml").write_bytes(b"mine\n")
    journal = root / ".journal"
    journal.write_text(json.dumps(listing))
    with pytest.raises(OutputError) as caught:
        files.recover_new_files(journal, _anything)
    assert caught.value.code == "journal-refused"
    assert journal.exists() and (tmp_path / "outside.yaml").read_bytes() == b"mine\n"


def test_two_adds_at_once_write_each_entry_once(mini_root: Path) -> None:
    args = [sys.executable, "-m", "litcorpus", "add", "--root", str(mini_root), "--bibtex", BIB]
    before = set(os.listdir(mini_root / "papers"))
    runs = [subprocess.Popen(args, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in runs]
    assert sorted(code for code, _ in results) == [0, 1], results
    assert "add-refused" in next(err for code, err in results if code == 1)
    added = set(os.listdir(mini_root / "papers")) - before
    assert added == {"weiss2025magrpo.yaml", "okkey2026.yaml", "sparse.yaml"}


@pytest.mark.parametrize(("mask", "folder", "file"), [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)])
def test_outputs_follow_the_umask(mini_root: Path, mask: int, folder: int, file: int) -> None:
    """A web server running as another user can read site/ and stats/ (umask 022)."""
    code = (
        "import os, sys; os.umask(int(sys.argv[1])); "
        "sys.argv[1:] = sys.argv[2:]; from litcorpus.entry import main; main()"
    )
    for command in ("stats", "site"):
        subprocess.run(
            [sys.executable, "-c", code, str(mask), command, "--root", str(mini_root)],
            check=True,
            capture_output=True,
        )
        out = mini_root / command
        modes = {stat.S_IMODE(p.stat().st_mode) for p in [out, *out.rglob("*")] if p.is_dir()}
        assert modes == {folder}, command
        modes = {stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*") if p.is_file()}
        assert modes == {file}, command
