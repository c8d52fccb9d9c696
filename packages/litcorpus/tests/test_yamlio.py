"""The reader keeps values as written and turns hostile files into bounded problems."""

from __future__ import annotations

import time
from pathlib import Path

from litcorpus.model.yamlio import read_document


def read(tmp_path: Path, text: str | bytes) -> object:
    f = tmp_path / "x.yaml"
    f.write_bytes(text.encode() if isinstance(text, str) else text)
    return read_document(f, "x.yaml")


def test_implicit_scalars_keep_their_text(tmp_path: Path) -> None:
    doc = read(
        tmp_path, "a: 2412.01920\nb: yes\nc: 2026-04-26\nd: 017\ne: 2025\nf: ~\ng: 'yes'\nh: NA\n"
    )
    assert doc.data == {
        "a": "2412.01920",
        "b": "yes",
        "c": "2026-04-26",
        "d": "017",
        "e": 2025,
        "f": None,
        "g": "yes",
        "h": "NA",
    }
    assert doc.implicit == {
        ("a",): ("float", "2412.01920"),
        ("b",): ("bool", "yes"),
        ("c",): ("timestamp", "2026-04-26"),
        ("d",): ("int", "017"),
        ("e",): ("int", "2025"),
    }
    assert doc.positions[("c",)] == (3, 1)


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 12)]
    start = time.perf_counter()
    doc = read(tmp_path, "\n".join(lines) + "\n")
    assert time.perf_counter() - start < 2
    assert [p.code for p in doc.problems] == ["yaml-alias"]


def test_deep_nesting_is_bounded(tmp_path: Path) -> None:
    doc = read(tmp_path, "a: " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert [p.code for p in doc.problems] == ["yaml-syntax"]
    assert "depth" in doc.problems[0].message


def test_huge_file_is_not_parsed(tmp_path: Path) -> None:
    doc = read(tmp_path, b"a: " + b"x" * (50 << 20))
    assert [p.code for p in doc.problems] == ["file-too-large"]
    assert doc.data is None
