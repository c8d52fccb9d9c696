"""make test's first step (tests/sysdeps.sh): on a machine without the system programs the
tests run, it installs them with apt-get as root, or names them all in one line and fails
before any test runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "sysdeps.sh"
PACKAGES = [
    "chromium",
    "biber",
    "pandoc",
    "bibutils",
    "r-base-core",
    "libreoffice-calc-nogui",
    "nodejs",
    "npm",
]


def bare_path(tmp_path: Path, *extra: str) -> Path:
    """A PATH holding only bash and id (and EXTRA): none of the programs the tests need."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("bash", "id", *extra):
        found = shutil.which(name)
        assert found, name
        (bin_dir / name).symlink_to(found)
    return bin_dir


def run(bin_dir: Path, as_user: bool, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The script on a PATH of BIN_DIR alone, with ARGS and ENV; as an unprivileged user when
    AS_USER and we are root."""
    env = {"PATH": str(bin_dir), "HOME": str(bin_dir.parent), **env}
    # A copy beside BIN_DIR: the checkout may lie where the user cannot enter (root's home).
    script = shutil.copy(SCRIPT, bin_dir.parent / SCRIPT.name)
    cmd = [str(bin_dir / "bash"), str(script), *args]
    if as_user and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "util-linux's setpriv"
        cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=bin_dir.parent)


@contextmanager
def user_folder() -> Iterator[Path]:
    """A folder the unprivileged user can read: pytest's own temporary folders, and a TMPDIR
    inside a private checkout, are root's alone."""
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        Path(tmp).chmod(0o755)
        yield Path(tmp)


def test_a_user_without_the_programs_gets_one_line_naming_them_all() -> None:
    with user_folder() as tmp:
        done = run(bare_path(tmp), as_user=True)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert all(f" {p}" in lines[0] for p in PACKAGES), lines[0]
    assert lines[0].startswith("make needs system packages")
    assert "apt-get install -y" in lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="installs with apt-get only as root")
def test_root_installs_the_missing_programs_with_apt_get(tmp_path: Path) -> None:
    bin_dir = bare_path(tmp_path, "cat")
    log = tmp_path / "apt.log"
    (bin_dir / "apt-get").write_text(f'#!{bin_dir}/bash\necho "$@" >> {log}\n')
    (bin_dir / "apt-get").chmod(0o755)
    done = run(bin_dir, as_user=False)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "update -qq"
    # The browser and node with Debian's recommends (fonts), the export readers without.
    assert calls[1] == "install -y -qq chromium nodejs npm"
    assert calls[2] == (
        "install -y -qq --no-install-recommends biber pandoc bibutils r-base-core "
        "libreoffice-calc-nogui"
    )


def test_make_asks_only_for_node_and_npm() -> None:
    """`make` (the site's MiniSearch) needs node and npm alone, not the test programs."""
    with user_folder() as tmp:
        done = run(bare_path(tmp), True, "node", "npm")
    assert done.returncode == 1
    assert done.stderr.split(": ", 1)[1].startswith("nodejs npm (as root")


def test_nothing_is_done_when_everything_is_there() -> None:
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr


def test_libreoffice_without_calc_counts_as_missing() -> None:
    """soffice alone (LibreOffice with another component) cannot read a CSV: without Calc's
    library the script names libreoffice-calc-nogui."""
    with user_folder() as tmp:
        bin_dir = bare_path(tmp)
        (bin_dir / "soffice").write_text("#!/bin/sh\n")
        (bin_dir / "soffice").chmod(0o755)
        done = run(bin_dir, True, "soffice", SYSDEPS_CALC_LIB=str(tmp / "no"))
    assert done.returncode == 1 and "libreoffice-calc-nogui" in done.stderr, done.stderr
