"""Golden-file comparison: `make golden` (LITCORPUS_GOLDEN=update) rewrites the expected files,
and the diff is reviewed like any other change."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"


def assert_golden(name: str, files: dict[str, bytes]) -> None:
    """FILES must equal tests/golden/NAME exactly (same paths, same bytes)."""
    target = GOLDEN / name
    if os.environ.get("LITCORPUS_GOLDEN") == "update":
        shutil.rmtree(target, ignore_errors=True)
        for rel, data in files.items():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            (target / rel).write_bytes(data)
    expected = {
        p.relative_to(target).as_posix(): p.read_bytes()
        for p in sorted(target.rglob("*"))
        if p.is_file()
    }
    assert sorted(files) == sorted(expected), "file set differs; run `make golden` and review"
    for rel, data in files.items():
        assert data.decode() == expected[rel].decode(), f"{rel} differs from golden/{name}"
