"""Reads orchestration traces: JSON files (one trace) or JSON Lines (one trace per line).

Parsing uses orjson; a document that orjson refuses because it holds NaN or Infinity (which
Python's json accepts) is parsed again leniently so that every non-finite number is reported
with its JSON path, and the rest of the trace is still checked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

MAX_BYTES = 512 * 1024 * 1024
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "traces" / "trace.schema.json"


@dataclass(frozen=True, slots=True)
class TraceProblem:
    file: str
    pointer: str
    code: str
    message: str
    severity: str = "error"

    def text(self) -> str:
        tag = "" if self.severity == "error" else " [warning]"
        return f"{self.file}: {self.pointer}: {self.code}{tag}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {
            "file": self.file,
            "pointer": self.pointer,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass(slots=True)
class Document:
    """One trace as read: its label (file, or file:line for JSON Lines) and its data."""

    label: str
    data: Any
    problems: list[TraceProblem]


def _non_finite(obj: Any, path: str, out: list[str]) -> None:
    stack = [(obj, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            out.append(where)
        elif isinstance(node, dict):
            stack.extend((v, f"{where}.{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(node))


def parse(text: bytes, label: str) -> Document:
    try:
        return Document(label, orjson.loads(text), [])
    except orjson.JSONDecodeError as exc:
        first = exc
    try:  # NaN/Infinity: Python's json reads them, so each can be reported with its path
        data = json.loads(text)
    except (ValueError, RecursionError):
        where = f"line {first.lineno}, column {first.colno}"
        return Document(
            label, None, [TraceProblem(label, "$", "malformed-json", f"{first.msg} at {where}")]
        )
    paths: list[str] = []
    _non_finite(data, "$", paths)
    if not paths:
        return Document(label, None, [TraceProblem(label, "$", "malformed-json", first.msg)])
    return Document(
        label,
        data,
        [
            TraceProblem(label, p, "non-finite", "NaN and Infinity are not JSON numbers")
            for p in sorted(paths)
        ],
    )


def read_traces(file: Path, max_bytes: int = MAX_BYTES) -> Iterator[Document]:
    """Every trace in FILE; JSON Lines (.jsonl, .ndjson) is read line by line."""
    label = str(file)
    try:
        size = file.stat().st_size
    except OSError as exc:
        yield Document(
            label, None, [TraceProblem(label, "$", "unreadable", exc.strerror or str(exc))]
        )
        return
    if file.suffix in (".jsonl", ".ndjson"):
        with open(file, "rb") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    yield parse(line, f"{label}:{n}")
        return
    if size > max_bytes:
        yield Document(
            label,
            None,
            [
                TraceProblem(
                    label,
                    "$",
                    "too-large",
                    f"{size:,} bytes is over the {max_bytes:,}-byte limit; "
                    "split the run into JSON Lines or raise --max-bytes",
                )
            ],
        )
        return
    yield parse(file.read_bytes(), label)


def schema() -> dict[str, Any]:
    return dict(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
