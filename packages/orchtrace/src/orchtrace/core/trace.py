"""Reads orchestration traces: JSON files (one trace) or JSON Lines (one trace per line), in
our format or the survey artifact's.

A trace that matches its format's item rules is decoded into typed structs (model.py);
anything else is read as plain JSON so that every problem can be reported with its JSON path:
NaN and Infinity, and keys that an object repeats (JSON readers keep the last one). Only
regular files are read: a pipe or a device could block forever or never end.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .codes import CODES

MAX_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class TraceProblem:
    file: str
    pointer: str
    code: str
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"undocumented problem code {self.code!r}: add it to codes.py")

    @property
    def severity(self) -> str:
        """'error' or 'warning', as codes.py says of the code."""
        return CODES[self.code][0]

    def text(self) -> str:
        tag = "" if self.severity == "error" else " [warning]"
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.file}: {self.pointer}: {self.code}{tag}: {self.message}{hint}"

    def to_dict(self) -> dict[str, str]:
        return {
            "file": self.file,
            "pointer": self.pointer,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


@dataclass(slots=True)
class Document:
    """One trace as read: its label (file, or file:line for JSON Lines), its data, the problems
    found in reading it, and its format ('current' or 'artifact'; found from the data when
    not given)."""

    label: str
    data: Any
    problems: list[TraceProblem]
    format: str = ""
    # typed data whose keys are still to be checked: None if they hold, else the plain reading
    recheck: Callable[[], Document | None] | None = None

    def __post_init__(self) -> None:
        if not self.format:
            from .formats import detect

            self.format = detect(self.data)


NON_FINITE = "NaN and Infinity are not JSON numbers"


def find_paths(
    obj: Any, path: str, test: Callable[[Any], bool], out: list[tuple[str, Any]]
) -> None:
    """Every (JSON path, value) in OBJ whose value passes TEST, depth first without recursion."""
    stack = [(obj, path)]
    while stack:
        node, where = stack.pop()
        if test(node):
            out.append((where, node))
        if isinstance(node, dict):
            stack.extend((v, f"{where}.{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(node))


def _is_non_finite(node: Any) -> bool:
    return isinstance(node, float) and not math.isfinite(node)


def non_finite(obj: Any, path: str, out: list[str]) -> None:
    found: list[tuple[str, Any]] = []
    find_paths(obj, path, _is_non_finite, found)
    out.extend(where for where, _ in found)


class _Repeats(dict[str, Any]):
    """A JSON object that repeated keys (its values are the last ones): which keys."""

    __slots__ = ("repeated",)
    repeated: list[str]


def _object(found: list[bool], pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    repeats = _Repeats(obj)
    counts: dict[str, int] = {}
    for key, _ in pairs:
        counts[key] = counts.get(key, 0) + 1
    repeats.repeated = [key for key, n in counts.items() if n > 1]
    found.append(True)
    return repeats


def _problem(label: str, code: str, message: str, hint: str = "") -> Document:
    return Document(label, None, [TraceProblem(label, "$", code, message, hint)], "current")


def parse(text: bytes | str, label: str, defer_keys: bool = False) -> Document:
    """One trace: typed structs when it matches its format's item rules, else plain JSON data
    (NaN and Infinity, which Python's json accepts, and repeated keys reported with their
    paths). With DEFER_KEYS, typed data comes before its keys are checked, with the check as
    its `recheck` (examine.py runs it while a second process replays the trace)."""
    import msgspec

    from .model import decode, guess_format, keys_kept

    first = guess_format(text)
    for fmt in (first, "artifact" if first == "current" else "current"):
        try:  # the fast path: parse and check every item against the schema in one pass
            data = decode(text, fmt, keys=not defer_keys)
            break
        except msgspec.DecodeError:
            pass  # a wrong guess fails at once, most often on a top-level field
    else:
        return _plain(text, label)
    doc = Document(label, data, [], fmt)
    if defer_keys:
        doc.recheck = lambda: None if keys_kept(text, data) else _plain(text, label)
    return doc


def _plain(text: bytes | str, label: str) -> Document:
    """TEXT read as plain JSON, to report every problem."""
    from .formats import detect

    constants: list[str] = []
    found: list[bool] = []

    def constant(name: str) -> float:
        constants.append(name)
        return float(name)

    try:
        data = json.loads(
            text.decode("utf-8") if isinstance(text, bytes) else text,
            parse_constant=constant,
            object_pairs_hook=partial(_object, found),
        )
    except UnicodeDecodeError as exc:
        return _problem(label, "malformed-json", f"not UTF-8: byte {exc.start} cannot be decoded")
    except json.JSONDecodeError as exc:
        return _problem(
            label, "malformed-json", f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        )
    except RecursionError:
        return _problem(label, "malformed-json", "nested too deeply to read")
    problems = []
    if constants:
        paths: list[str] = []
        non_finite(data, "$", paths)
        problems = [TraceProblem(label, p, "non-finite", NON_FINITE) for p in sorted(paths)]
    repeats: list[tuple[str, Any]] = []
    if found:
        find_paths(data, "$", lambda node: type(node) is _Repeats, repeats)
    for where, obj in sorted(repeats):
        for key in obj.repeated:
            problems.append(
                TraceProblem(
                    label,
                    f"{where}.{key}",
                    "duplicate-key",
                    f"key '{key}' appears more than once in this object",
                    "JSON readers keep only the last value; keep one",
                )
            )
    return Document(label, data, problems, detect(data))


def from_data(label: str, data: Any) -> Document:
    """DATA made in Python (a dict, not text) as a Document with the problems its text would
    have: NaN and Infinity at any depth, each with its path, as `parse` reports them (a dict
    does not pass through a JSON reader that would catch them)."""
    try:  # a C-speed pass finds the common case, a clean trace, without a walk in Python
        json.dumps(data, allow_nan=False, skipkeys=True, default=lambda _: None)
    except ValueError as exc:
        if "Circular" in str(exc):
            return _problem(label, "malformed-json", "a value contains itself: JSON cannot hold it")
        paths: list[str] = []
        non_finite(data, "$", paths)
        problems = [TraceProblem(label, p, "non-finite", NON_FINITE) for p in sorted(paths)]
        return Document(label, data, problems)
    except RecursionError:
        return _problem(label, "malformed-json", "nested too deeply to read")
    return Document(label, data, [])


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def read_inputs(
    file: Path, max_bytes: int = MAX_BYTES, lines: bool = True
) -> Iterator[tuple[str, bytes, Document | None]]:
    """Each trace in FILE as (label, text, None), or ('', b'', a document holding the reason
    it cannot be read). JSON Lines (.jsonl, .ndjson) give one trace per line if LINES."""
    label = str(file)
    try:  # opened without blocking, then checked: a pipe would wait for a writer forever
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        yield "", b"", _problem(label, "unreadable", exc.strerror or str(exc))
        return
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _kind(info.st_mode)
            hint = "orchtrace reads regular files only; save the stream to a file first"
            yield "", b"", _problem(label, "unreadable", f"{kind}, not a regular file", hint)
            return
        if lines and file.suffix in (".jsonl", ".ndjson"):
            for n, line in enumerate(f, 1):
                if line.strip():
                    yield f"{label}:{n}", line, None
            return
        if info.st_size > max_bytes:
            message = f"{info.st_size:,} bytes is over the {max_bytes:,}-byte limit"
            hint = "split the run into JSON Lines or raise --max-bytes"
            yield "", b"", _problem(label, "too-large", message, hint)
            return
        try:
            text = f.read()
        except OSError as exc:
            yield "", b"", _problem(label, "unreadable", exc.strerror or str(exc))
            return
    yield label, text, None


def read_traces(file: Path, max_bytes: int = MAX_BYTES) -> Iterator[Document]:
    """Every trace in FILE, parsed."""
    for label, text, failed in read_inputs(file, max_bytes):
        yield failed if failed is not None else parse(text, label)
