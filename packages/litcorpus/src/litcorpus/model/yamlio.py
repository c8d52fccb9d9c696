"""Reads corpus YAML files safely, keeping every scalar as written and the position of each field.

YAML 1.1 silently retypes plain scalars (`yes` -> True, `2412.01920` -> 2412.0192, dates). This
reader keeps such scalars as their text and records them in `Document.implicit`, so the
validator can ask for quotes where another YAML reader would change the value. Decimal integers
become ints, empty scalars None. Anchors and aliases, unknown tags (on keys too), duplicate
keys, deep nesting, integers beyond what the outputs hold, oversized files and files of too many
items, binary and non-UTF-8 files, pipes or devices, and links out of the repository, become
problems instead of exceptions.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .problems import Problem

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

FieldPath = tuple[str | int, ...]
MAX_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_ITEMS = 20_000  # parse events (scalars, lists, mappings): records hold a few hundred
# The largest integer every output holds exactly (a double, JavaScript's Number): beyond it,
# tables, figures and the site would round it or fail.
MAX_INT = 2**53 - 1
SCAN_FROM = 64 << 10  # files this large are counted before they are composed
_CORE = "tag:yaml.org,2002:"
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_KNOWN_TAGS = {
    _CORE + t
    for t in ("str", "int", "float", "bool", "null", "timestamp", "map", "seq", "merge", "value")
}


@dataclass(slots=True)
class Document:
    """One parsed file: its data, where each field stands, and what YAML would retype."""

    data: Any = None
    positions: dict[FieldPath, tuple[int, int]] = field(default_factory=dict)
    implicit: dict[FieldPath, tuple[str, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def where(self, path: FieldPath) -> tuple[int | None, int | None]:
        """Line and column of a field, falling back to its nearest located parent."""
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (None, None))


def strings(data: Any, start: FieldPath = ()) -> Iterator[tuple[FieldPath, str]]:
    """Every text value of DATA, however deeply nested in mappings and lists, with its path."""
    stack: list[tuple[FieldPath, Any]] = [(start, data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack += [((*path, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [((*path, i), v) for i, v in enumerate(value)]
        elif isinstance(value, str):
            yield path, value


def _too_many_items(text: str) -> bool:
    """Whether TEXT holds more than MAX_ITEMS scalars and collections, found by streaming its
    parse events (building the node tree of a huge list would cost its size in memory)."""
    try:
        for n, _ in enumerate(yaml.parse(text, Loader=_Loader)):
            if n > MAX_ITEMS:
                return True
    except yaml.YAMLError:
        return False  # the composer reports it, with its place
    return False


def _line_of(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def leaves(path: Path, root: Path) -> bool:
    """Whether PATH is a link that resolves outside ROOT; a loop does not resolve (reading it
    fails, and says so)."""
    try:
        return path.is_symlink() and not path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop on Python < 3.13
        return False


def read_document(
    file: Path, rel: str, max_bytes: int = MAX_BYTES, root: Path | None = None
) -> Document:
    """Read and parse one YAML file; never raises for bad content. Given ROOT, a file that is
    a link to a place outside it is not read."""
    doc = Document()

    def fail(
        code: str,
        message: str,
        hint: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> Document:
        doc.problems.append(Problem(rel, code, message, line, column, hint=hint))
        return doc

    if root is not None and leaves(file, root):
        return fail(
            "symlink-outside",
            "symbolic link points outside the repository; it is not read",
            "commit the file itself",
        )
    try:
        info = file.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or device would block or never end
            return fail("unreadable-file", "not a regular file", "commit the file itself")
        size = info.st_size
        if size > max_bytes:
            return fail(
                "file-too-large",
                f"file is {size:,} bytes; the limit is {max_bytes:,}",
                "an entry is a few kilobytes: is this the right file?",
            )
        raw = file.read_bytes()
    except OSError as exc:
        return fail("unreadable-file", f"cannot read file: {exc.strerror or exc}")
    if b"\x00" in raw:
        return fail(
            "binary-file",
            "file holds NUL bytes: it is binary, not YAML text",
            line=_line_of(raw, raw.index(b"\x00")),
        )
    if raw.startswith(b"\xef\xbb\xbf"):
        fail(
            "bom", "file starts with a UTF-8 byte-order mark", "save it as UTF-8 without BOM", 1, 1
        )
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return fail(
            "not-utf8",
            f"invalid UTF-8 byte {raw[exc.start]:#04x}",
            "save the file as UTF-8",
            _line_of(raw, exc.start),
        )
    if "\r" in text:
        fail(
            "crlf",
            "file uses CR or CRLF line endings",
            "save it with LF (Unix) line endings",
            _line_of(raw, raw.index(b"\r")),
        )
    if len(raw) > SCAN_FROM and _too_many_items(text):
        return fail(
            "too-many-items",
            f"file holds more than {MAX_ITEMS:,} YAML items",
            "an entry holds a few dozen fields and short lists: is this the right file?",
        )
    try:
        node = yaml.compose(text, Loader=_Loader)
    except RecursionError:  # the pure-Python reader recurses once per level; libyaml stops at 1000
        return fail(
            "too-deep",
            "nesting too deep for the YAML reader",
            "entries are flat mappings with short lists",
        )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(x) for x in (exc.context, exc.problem) if x) or str(exc)
        hint = "use spaces, not tabs, to indent" if "tab" in message else None
        return fail(
            "yaml-syntax",
            message,
            hint,
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
        )
    except yaml.YAMLError as exc:
        return fail("yaml-syntax", str(exc).splitlines()[0])
    if node is None:
        return fail("empty-file", "file holds no YAML document", "see CONTRIBUTING.md", 1, 1)
    doc.positions[()] = (node.start_mark.line + 1, node.start_mark.column + 1)
    doc.data = _Walker(doc, rel).value(node, (), 0)
    return doc


class _Walker:
    """Turns a composed node tree into plain values, recording positions and problems."""

    def __init__(self, doc: Document, rel: str) -> None:
        self.doc, self.rel, self.seen, self.aliased = doc, rel, set[int](), False

    def problem(self, node: yaml.Node, code: str, message: str, hint: str | None = None) -> None:
        mark = node.start_mark
        self.doc.problems.append(
            Problem(self.rel, code, message, mark.line + 1, mark.column + 1, hint=hint)
        )

    def value(self, node: yaml.Node, path: FieldPath, depth: int) -> Any:
        if id(node) in self.seen:
            if not self.aliased:  # one report per file, however often the alias recurs
                self.aliased = True
                self.problem(
                    node,
                    "yaml-alias",
                    "anchors and aliases are not allowed",
                    "write each value out in full",
                )
            return None
        self.seen.add(id(node))
        if node.tag not in _KNOWN_TAGS:
            self.problem(node, "yaml-tag", f"unsupported YAML tag {node.tag}", "remove the tag")
            return None
        if depth > MAX_DEPTH:
            self.problem(
                node,
                "too-deep",
                f"nesting deeper than {MAX_DEPTH} levels",
                "entries are flat mappings with short lists",
            )
            return None
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, yaml.SequenceNode):
            out = []
            for i, item in enumerate(node.value):
                self.doc.positions[(*path, i)] = (
                    item.start_mark.line + 1,
                    item.start_mark.column + 1,
                )
                out.append(self.value(item, (*path, i), depth + 1))
            return out
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key_node.tag not in _KNOWN_TAGS:  # `!custom venue: arXiv`: the key is not plain
                self.problem(
                    key_node, "yaml-tag", f"unsupported YAML tag {key_node.tag}", "remove the tag"
                )
                continue
            if not isinstance(key, str):
                self.problem(key_node, "yaml-syntax", "mapping keys must be plain text")
                continue
            if key in mapping:
                self.problem(
                    key_node,
                    "duplicate-yaml-key",
                    f"key '{key}' appears twice",
                    "keep one; the first is used",
                )
                continue
            self.doc.positions[(*path, key)] = (
                key_node.start_mark.line + 1,
                key_node.start_mark.column + 1,
            )
            mapping[key] = self.value(value_node, (*path, key), depth + 1)
        return mapping

    def scalar(self, node: yaml.ScalarNode, path: FieldPath) -> Any:
        text: str = node.value
        if node.style or node.tag == _CORE + "str":  # quoted or block: kept as written
            return text
        kind = node.tag.removeprefix(_CORE)
        if kind == "null":
            return None
        self.doc.implicit[path] = (kind, text)
        if kind == "int" and _DECIMAL.match(text):
            try:
                number = int(text)
            except ValueError:  # more digits than Python converts: kept as text
                return text
            if abs(number) > MAX_INT:
                self.problem(
                    node,
                    "out-of-range",
                    f"{text[:20]}{'...' if len(text) > 20 else ''} is too large for the tables",
                    f"a whole number holds at most {MAX_INT:,}",
                )
            return number
        return text
