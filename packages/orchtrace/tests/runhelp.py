"""What the run-table tests share: the real exports, the command, a table's rows, and a folder of
every kind of input with one bad trace of each kind of badness."""

from __future__ import annotations

import gzip
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import zstandard

from tracehelp import HERE, REPO

sys.path.insert(0, str(REPO / "tests" / "bench"))
from genrollouts import rollout, write  # noqa: F401 (write: the tests use it from here)

FIXTURES = HERE / "fixtures"


BIN = Path(sys.executable).parent


def rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).to_pylist()


@pytest.fixture(name="mixed")
def mixed_fixture(tmp_path: Path) -> Path:
    """A folder of every kind of input, with one bad trace of each kind of badness."""
    import random

    rng = random.Random(1)
    folder = tmp_path / "in"
    (folder / "deep").mkdir(parents=True)
    lines = [json.dumps(rollout(n, rng)) for n in range(3)]
    lines.insert(1, "{not json")
    (folder / "shard.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "deep" / "one.json.gz").write_bytes(
        gzip.compress(json.dumps(rollout(3, rng)).encode())
    )
    (folder / "deep" / "two.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress((json.dumps(rollout(4, rng)) + "\n").encode())
    )
    shutil.copy(FIXTURES / "artifact" / "example_trace.json", folder / "artifact.json")
    shutil.copy(FIXTURES / "exports" / "openinference-langgraph.pb", folder / "spans.pb")
    shutil.copy(FIXTURES / "exports" / "langfuse-openai-agents.json", folder / "langfuse.json")
    bad = rollout(5, rng)
    bad["events"].append(dict(bad["events"][0]))  # a repeated event id
    (folder / "bad.json").write_text(json.dumps(bad))
    (folder / "broken.json.gz").write_bytes(b"not gzip at all")
    (folder / "notes.txt").write_text("not an input")
    return folder
