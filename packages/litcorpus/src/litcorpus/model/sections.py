"""Reads declarative YAML files (taxonomy.yaml and its views, claims.yaml, releases.yaml,
searches.yaml): typed access to their mappings that records a problem, with file, line and
field, wherever a value is missing, of the wrong type, unknown, or an id that
cannot name a file, instead of raising. `text_problems` holds every such file to the records'
rules for text (see text) and for what YAML would retype."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .problems import Problem, choices_hint
from .text import ID_HINT, character_problems, id_ok, parse_day
from .yamlio import Document, FieldPath, strings


class Section:
    """One declarative document; BAD_CODE is the code of its general problems."""

    def __init__(self, doc: Document, file: str, bad_code: str) -> None:
        self.doc, self.file, self.bad_code = doc, file, bad_code
        self.problems: list[Problem] = []

    @property
    def data(self) -> dict[str, Any]:
        return self.doc.data if isinstance(self.doc.data, dict) else {}

    def problem(self, path: FieldPath, code: str, message: str, hint: str | None = None) -> None:
        line, col = self.doc.where(path)
        field = ".".join(map(str, path)) or None
        self.problems.append(Problem(self.file, code, message, line, col, field, hint))

    def bad(self, path: FieldPath, message: str, hint: str | None = None) -> None:
        """A problem with the document's general code."""
        self.problem(path, self.bad_code, message, hint)

    def get(
        self,
        m: dict[str, Any],
        path: FieldPath,
        key: str,
        typ: type | tuple[type, ...],
        default: Any = ...,
    ) -> Any:
        """M[KEY] when it has type TYP; DEFAULT when absent (a problem if there is none)."""
        if key not in m or m[key] is None:
            if default is ...:
                self.bad(path, f"missing '{key}'")
                return typ() if isinstance(typ, type) else None
            return default
        if typ is bool and m[key] in ("true", "false"):
            return m[key] == "true"
        if not isinstance(m[key], typ):
            self.bad((*path, key), f"'{key}' has the wrong type")
            return typ() if isinstance(typ, type) else default
        return m[key]

    def safe_id(self, path: FieldPath, value: Any, what: str) -> bool:
        """Whether VALUE, an id that becomes a file name, is safe (an unsafe-id problem if not)."""
        if id_ok(value):
            return True
        self.problem(path, "unsafe-id", f"{what} {str(value)[:80]!r} cannot name a file", ID_HINT)
        return False

    def known(self, m: dict[str, Any], path: FieldPath, allowed: Iterable[str], what: str) -> None:
        """An unknown-field problem for every key of M that ALLOWED does not hold."""
        names = list(allowed)
        for name in m:
            if name not in names:
                self.problem(
                    (*path, name), "unknown-field", f"unknown {what} field '{name}'",
                    choices_hint(name, names),
                )  # fmt: skip

    def items(
        self, m: dict[str, Any], path: FieldPath, key: str, typ: type
    ) -> list[tuple[FieldPath, dict[str, Any]]]:
        """The mappings listed (or keyed) under M[KEY], each with its path."""
        seq = self.get(m, path, key, typ, typ())
        pairs = seq.items() if isinstance(seq, dict) else enumerate(seq)
        out = []
        for k, item in pairs:
            if isinstance(item, dict):
                out.append(((*path, key, k), item))
            else:
                self.bad((*path, key, k), "expected a mapping")
        return out


def text_problems(doc: Document, file: str) -> list[Problem]:
    """What a declarative file's text may not hold, as records are checked: control and
    bidirectional characters and line breaks in any value, and scalars that other YAML readers
    would retype (anything but whole numbers, true and false, and YYYY-MM-DD days unquoted)."""
    out = []
    for path, value in strings(doc.data):
        line, col = doc.where(path)
        field = ".".join(map(str, path)) or None
        for code, message, hint in character_problems(value, prose=False):
            out.append(Problem(file, code, message, line, col, field, hint))
    for path, (kind, raw) in doc.implicit.items():
        if kind == "int" or raw.lower() in ("true", "false") or parse_day(raw) is not None:
            continue
        line, col = doc.where(path)
        out.append(
            Problem(
                file,
                "implicit-type",
                f"unquoted {raw} is read by YAML as a {kind}",
                line,
                col,
                ".".join(map(str, path)),
                f'quote it: "{raw}"',
            )
        )
    return out
