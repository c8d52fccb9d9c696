"""Reads declarative YAML files (taxonomy.yaml and its views, claims.yaml, releases.yaml,
searches.yaml): typed access to their mappings that records a problem, with file, line and
field, wherever a value is missing or of the wrong type, instead of raising."""

from __future__ import annotations

from typing import Any

from .problems import Problem
from .yamlio import Document, FieldPath


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
