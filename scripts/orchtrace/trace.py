"""Reads orchestration traces: JSON files (one trace) or JSON Lines (one trace per line).

A trace that matches the schema's item rules is decoded into typed structs (model.py);
anything else is read as plain JSON so that every problem can be reported, NaN and Infinity
included, with their JSON paths.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .codes import CODES
from .worker import Worker

MAX_BYTES = 512 * 1024 * 1024
PARALLEL_BYTES = 16 * 1024 * 1024  # below this, a worker process costs more than it saves
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "traces" / "trace.schema.json"


@dataclass(frozen=True, slots=True)
class TraceProblem:
    file: str
    pointer: str
    code: str
    message: str

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"undocumented problem code {self.code!r}: add it to codes.py")

    @property
    def severity(self) -> str:
        """'error' or 'warning', as codes.py says of the code."""
        return CODES[self.code][0]

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
    """One trace as read: its label (file, or file:line for JSON Lines) and its data. A large
    trace comes with a worker process, reading it a second time (see metrics.second_reading)."""

    label: str
    data: Any
    problems: list[TraceProblem]
    worker: Worker | None = None


NON_FINITE = "NaN and Infinity are not JSON numbers"


def non_finite(obj: Any, path: str, out: list[str]) -> None:
    stack = [(obj, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            out.append(where)
        elif isinstance(node, dict):
            stack.extend((v, f"{where}.{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(node))


def _not_utf8(label: str, exc: UnicodeDecodeError) -> Document:
    problem = f"not UTF-8: byte {exc.start} cannot be decoded"
    return Document(label, None, [TraceProblem(label, "$", "malformed-json", problem)])


def parse(text: bytes | str, label: str) -> Document:
    """One trace: typed structs when it matches the schema's item rules, else plain JSON data
    (NaN and Infinity, which Python's json accepts, reported with their paths)."""
    import msgspec

    from .model import decode

    worker = None
    if len(text) >= PARALLEL_BYTES:  # a second process reads it too, for edges and replay
        from .metrics import second_reading

        worker = Worker.start(second_reading, text)
    try:  # the fast path: parse and check every item against the schema in one pass
        return Document(label, decode(text), [], worker)
    except msgspec.DecodeError:
        if worker:
            worker.close(kill=True)  # read again as plain JSON, to report every problem
    constants: list[str] = []

    def constant(name: str) -> float:
        constants.append(name)
        return float(name)

    try:
        data = json.loads(
            text.decode("utf-8") if isinstance(text, bytes) else text, parse_constant=constant
        )
    except UnicodeDecodeError as exc:
        return _not_utf8(label, exc)
    except json.JSONDecodeError as exc:
        problem = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        return Document(label, None, [TraceProblem(label, "$", "malformed-json", problem)])
    except RecursionError:
        problem = "nested too deeply to read"
        return Document(label, None, [TraceProblem(label, "$", "malformed-json", problem)])
    if not constants:
        return Document(label, data, [])
    paths: list[str] = []
    non_finite(data, "$", paths)
    return Document(
        label, data, [TraceProblem(label, p, "non-finite", NON_FINITE) for p in sorted(paths)]
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
    doc = parse(file.read_bytes(), label)  # the bytes are released before the caller checks
    yield doc


def schema() -> dict[str, Any]:
    return dict(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
