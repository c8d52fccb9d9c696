"""The checks of one record against the taxonomy: its fields, their types and characters,
its key, identifiers, URLs, dates and authors, the values of its axes (required, allowed,
retired) and the evidence its orchestration tags need. Checks across records (duplicates)
and the run over the whole corpus are validate.py's."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..model.corpus import Record
from ..model.problems import Problem, choices_hint
from ..model.taxonomy import Axis, FieldSpec, Taxonomy
from ..model.text import character_problems, key_ok, parse_day, url_problem
from ..model.yamlio import FieldPath, strings


class RecordCheck:
    """Checks one record; collects problems with the field's line and column."""

    def __init__(self, rec: Record, tax: Taxonomy, today: dt.date) -> None:
        self.rec, self.tax, self.today = rec, tax, today
        self.problems: list[Problem] = []

    def problem(
        self,
        path: FieldPath,
        code: str,
        message: str,
        hint: str | None = None,
    ) -> None:
        line, col = self.rec.doc.where(path)
        field = ".".join(map(str, path)) or None
        self.problems.append(Problem(self.rec.path, code, message, line, col, field, hint))

    def implicit(self, path: FieldPath) -> bool:
        """Report a plain scalar that other YAML readers would retype; True if reported."""
        found = self.rec.doc.implicit.get(path)
        if found is None:
            return False
        kind, raw = found
        self.problem(
            path,
            "implicit-type",
            f"unquoted {raw} is read by YAML as a {kind}, not as text",
            f'quote it: "{raw}"',
        )
        return True

    def run(self) -> list[Problem]:
        rec, data = self.rec, self.rec.doc.data
        if data is None:
            return self.problems
        if not isinstance(data, dict):
            self.problem(
                (),
                "not-a-mapping",
                f"a record is a mapping of fields, not a {type(data).__name__}",
                "write one 'field: value' per line",
            )
            return self.problems
        kind = self.tax.kinds[rec.kind]
        self.characters(data, kind.fields)
        allowed = self.tax.allowed_fields(rec.kind)
        for name in data:
            if name not in allowed:
                self.problem(
                    (name,),
                    "unknown-field",
                    f"unknown field '{name}'",
                    choices_hint(name, allowed),
                )
        for spec in kind.fields.values():
            value = data.get(spec.id)
            if spec.type == "evidence":
                self.evidence(spec, value, data)
            elif value is None or value == "" or value == []:
                if spec.required:
                    self.problem(
                        (spec.id,),
                        "missing-field",
                        f"required field '{spec.id}' is missing or empty",
                        spec.description,
                    )
            elif spec.type in ("int", "date") or not self.implicit((spec.id,)):
                self.field(spec, value)
        for axis in self.tax.axes_for(rec.kind):
            self.axis(axis, data)
        self.key(kind.fields[kind.key_field], data.get(kind.key_field))
        return self.problems

    def characters(self, data: dict[str, Any], fields: dict[str, FieldSpec]) -> None:
        """Control and bidirectional characters in any text of the record; a line break only
        in fields of type text."""
        for path, value in strings(data):
            spec = fields.get(str(path[0]))
            prose = spec is not None and spec.type == "text"
            for code, message, hint in character_problems(value, prose):
                self.problem(path, code, message, hint)

    def evidence(self, spec: FieldSpec, value: Any, data: dict[str, Any]) -> None:
        """One item {source, quote, where} for each value tagged in SPEC's axes; no other.
        "Not applicable" (NA) needs none: an absence has no phrase to quote."""
        tagged: dict[str, FieldPath] = {}
        for axis_id in spec.axes:
            vals = data.get(axis_id)
            for i, v in enumerate(vals if isinstance(vals, list) else [vals]):
                if isinstance(v, str) and v and v != "NA":
                    tagged.setdefault(v, (axis_id, i) if isinstance(vals, list) else (axis_id,))
        if value in (None, "", []):
            value = {}
        if not isinstance(value, dict):
            self.problem((spec.id,), "wrong-type", f"'{spec.id}' must be a mapping of value: item")
            return
        for v, path in tagged.items():
            if v not in value:
                self.problem(
                    path,
                    "missing-evidence",
                    f"'{v}' is tagged but has no item in '{spec.id}'",
                    f"add {spec.id}: {{{v}: {{source: ..., quote: ..., where: ...}}}}",
                )
        for v, item in value.items():
            path = (spec.id, v)
            if v not in tagged:
                self.problem(
                    path,
                    "stray-evidence",
                    f"evidence for '{v}', which {' and '.join(spec.axes)} do not tag",
                    "tag the value or remove its evidence",
                )
            if not isinstance(item, dict):
                self.problem(path, "wrong-type", f"evidence for '{v}' must be a mapping")
                continue
            for part in ("source", "quote", "where"):
                text = item.get(part)
                if self.implicit((*path, part)):
                    continue
                if not isinstance(text, str) or not text.strip():
                    self.problem(
                        (*path, part) if part in item else path,
                        "missing-field",
                        f"evidence for '{v}' needs a non-empty '{part}'",
                    )
                elif part == "source" and spec.sources and text not in spec.sources:
                    self.problem(
                        (*path, part),
                        "unknown-value",
                        f"'{text}' is not an evidence source",
                        choices_hint(text, list(spec.sources)),
                    )

    def key(self, spec: FieldSpec, value: Any) -> None:
        stem, name = self.rec.stem, spec.id
        if not key_ok(stem, spec.pattern):
            self.problem(
                (),
                "unsafe-key",
                f"file name '{stem}' is not a safe key",
                f"it must match {spec.pattern}"
                if spec.pattern
                else "use lowercase letters, digits and single hyphens",
            )
        if isinstance(value, str) and value != stem:
            self.problem(
                (name,),
                "key-mismatch",
                f"{name} '{value}' does not match the file name '{stem}.yaml'",
                f"rename the file or set {name}: {stem}",
            )

    def field(self, spec: FieldSpec, value: Any) -> None:
        path: FieldPath = (spec.id,)
        t = spec.type
        if t == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                self.problem(
                    path,
                    "wrong-type",
                    f"'{spec.id}' must be a whole number, not {value!r}",
                    "write it without quotes, e.g. 2025",
                )
                return
            top = (
                self.today.year + spec.max_years_ahead if spec.max_years_ahead is not None else None
            )
            if (spec.min is not None and value < spec.min) or (top is not None and value > top):
                self.problem(
                    path,
                    "out-of-range",
                    f"'{spec.id}' {value} is out of range",
                    f"expected {spec.min} to {top}" if top else f"at least {spec.min}",
                )
            return
        if t in ("urls", "authors"):
            if not isinstance(value, list):
                self.problem(
                    path,
                    "wrong-type",
                    f"'{spec.id}' must be a list",
                    f"write it as a list: [{value}]",
                )
                return
            items = list(enumerate(value))
        elif isinstance(value, list | dict) and t != "ids":
            self.problem(
                path,
                "wrong-type",
                f"'{spec.id}' must be a single value, not a "
                f"{'list' if isinstance(value, list) else 'mapping'}",
            )
            return
        if t == "ids":
            self.ids(value)
        elif t == "date":
            self.date(path, str(value), spec.min)
        elif t == "urls":
            for i, item in items:
                self.url((spec.id, i), item)
        elif t == "authors":
            self.authors(items)
        elif not isinstance(value, str):
            self.problem(path, "wrong-type", f"'{spec.id}' must be text")
        elif t == "url":
            self.url(path, value)
        elif value != value.strip():
            self.problem(
                path,
                "whitespace",
                f"'{spec.id}' has leading or trailing spaces",
            )

    def url(self, path: FieldPath, value: Any) -> None:
        if self.implicit(path):
            return
        if not isinstance(value, str):
            self.problem(path, "wrong-type", "a URL must be text")
            return
        if (bad := url_problem(value)) is not None:
            self.problem(path, "bad-url", *bad)

    def date(self, path: FieldPath, value: str, min_year: int | None) -> None:
        day = parse_day(value)
        if day is None:
            self.problem(path, "bad-date", f"'{value}' is not a date", "write YYYY-MM-DD")
        elif day > self.today:
            self.problem(
                path, "bad-date", f"{value} is in the future", f"today is {self.today.isoformat()}"
            )
        elif min_year is not None and day.year < min_year:
            self.problem(path, "bad-date", f"{value} is before {min_year}", "a typo in the year?")

    def authors(self, items: list[tuple[int, Any]]) -> None:
        for i, name in items:
            path: FieldPath = ("authors", i)
            if self.implicit(path):
                continue
            if not isinstance(name, str) or not name.strip():
                self.problem(path, "bad-author", "an author must be a non-empty name")
            elif name.count(",") > 1 or name.strip().endswith(",") or name.strip()[0] == ",":
                self.problem(
                    path,
                    "bad-author",
                    f"'{name}' is not 'Family, Given'",
                    "one author per list item, as 'Family, Given'",
                )
            elif name == "others" and i != len(items) - 1:
                self.problem(path, "bad-author", "'others' may only close the list")
            elif name == "others" and i == 0:
                hint = "list at least the first author, as the work's own page gives it"
                self.problem(path, "bad-author", "'others' alone names no author", hint)

    def ids(self, value: Any) -> None:
        if not isinstance(value, dict):
            self.problem(
                ("ids",),
                "wrong-type",
                "'ids' must be a mapping of scheme: id",
                'e.g. ids: {arxiv: "2412.01928"}',
            )
            return
        for scheme, ident in value.items():
            path: FieldPath = ("ids", scheme)
            spec = self.tax.id_schemes.get(scheme)
            if spec is None:
                self.problem(
                    path,
                    "unknown-field",
                    f"unknown id scheme '{scheme}'",
                    choices_hint(scheme, list(self.tax.id_schemes)),
                )
            elif self.implicit(path):
                continue
            elif not isinstance(ident, str) or not spec.pattern.match(ident):
                self.problem(
                    path,
                    "bad-id",
                    f"'{ident}' is not a valid {spec.label} id",
                    f'expected the form of "{spec.example}"',
                )

    def axis(self, axis: Axis, data: dict[str, Any]) -> None:
        path: FieldPath = (axis.id,)
        value = data.get(axis.id)
        present = value not in (None, "", [])
        applies = all(data.get(k) in vals for k, vals in axis.only_when.items())
        needed = axis.required or (
            bool(axis.required_when)
            and all(data.get(k) in vals for k, vals in axis.required_when.items())
        )
        if present and not applies:
            cond = "; ".join(f"{k} is {' or '.join(v)}" for k, v in axis.only_when.items())
            self.problem(
                path, "not-applicable", f"'{axis.id}' applies only when {cond}", "remove the field"
            )
            return
        if not present:
            if needed:
                self.problem(
                    path,
                    "missing-field",
                    f"required field '{axis.id}' is missing",
                    f"allowed: {', '.join(axis.current_ids)}",
                )
            return
        if axis.multi:
            if not isinstance(value, list):
                self.problem(
                    path,
                    "wrong-type",
                    f"'{axis.id}' takes a list",
                    f"write it as a list: [{value}]",
                )
                return
            items: list[tuple[FieldPath, Any]] = [((axis.id, i), v) for i, v in enumerate(value)]
            seen: set[Any] = set()
            for p, v in items:
                if isinstance(v, str) and v in seen:
                    self.problem(p, "duplicate-value", f"'{v}' is listed twice")
                seen.add(v if isinstance(v, str) else None)
        elif isinstance(value, list | dict):
            self.problem(
                path,
                "wrong-type",
                f"'{axis.id}' takes one value, not a list",
                f"choose one of: {', '.join(axis.current_ids)}",
            )
            return
        else:
            items = [(path, value)]
        for p, v in items:
            if self.implicit(p):
                continue
            found = axis.by_id.get(v) if isinstance(v, str) else None
            if found is None:
                self.problem(
                    p,
                    "unknown-value",
                    f"'{v}' is not a value of {axis.id}",
                    choices_hint(str(v), axis.current_ids),
                )
            elif found.replaced_by:
                self.problem(
                    p,
                    "retired-value",
                    f"'{v}' is retired in {axis.id}",
                    f"use '{found.replaced_by}'",
                )
