"""The schema checks of a trace, in its format: every item against its format's rules.

Reads a parsed trace (plain JSON data or typed structs) and writes problems into a Report. A
fast pass checks each agent, event, edge and reward column by column; items it flags are
explained by jsonschema against the format's schema (traces/trace.schema.json or
traces/artifact.schema.json). Typed structs passed these rules while they were decoded. Each
code is reported at most MAX_PER_CODE times per trace, then summarized.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..core.codes import CODES
from ..core.formats import their_pointer
from ..core.model import Item
from ..core.schema import schema
from ..core.trace import NON_FINITE, TraceProblem, non_finite

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

MAX_PER_CODE = 50
FLOAT_MAX = sys.float_info.max
OUT_OF_RANGE = "integer too large for a 64-bit float (times and rewards are computed as floats)"
SECTIONS = ("agents", "events", "edges", "rewards")  # the lists of objects a format may have


@lru_cache(maxsize=2)
def _spec(fmt: str) -> dict[str, Any]:
    s = schema(fmt)
    props = s["properties"]
    items = {
        name: props[name]["items"]
        for name in SECTIONS
        if name in props and props[name].get("type") == "array"
    }
    return {
        "schema": s,
        "sections": tuple(items),
        "items": items,
        "fields": {name: set(v["properties"]) for name, v in items.items()},
        "open": {name for name, v in items.items() if v.get("additionalProperties") is not False},
        "required": {name: tuple(v.get("required", [])) for name, v in items.items()},
        # field -> (JSON type, minimum or minLength, enum): what the fast pass checks
        "rules": {
            name: {
                k: (
                    p.get("type"),
                    p.get("minimum", p.get("minLength")),
                    set(p["enum"]) if "enum" in p else None,
                )
                for k, p in v["properties"].items()
            }
            for name, v in items.items()
        },
    }


@lru_cache(maxsize=8)
def _validator(fmt: str, section: str | None) -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # only traces with problems need it

    spec = _spec(fmt)
    if section is None:  # the top level, with the big arrays' items left to the fast pass
        shallow = dict(spec["schema"])
        shallow["properties"] = {
            k: ({"type": "array", "minItems": v.get("minItems", 0)} if k in spec["items"] else v)
            for k, v in spec["schema"]["properties"].items()
        }
        return Draft202012Validator(shallow)
    return Draft202012Validator(spec["items"][section])


def _pointer(base: str, path: Any) -> str:
    out = base
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integral(value: int | float) -> bool:
    """Whether JSON Schema counts VALUE as an integer: 3 and 3.0 alike."""
    return isinstance(value, int) or value.is_integer()


def _huge_integer(value: Any) -> bool:
    return _number(value) and isinstance(value, int) and not -FLOAT_MAX <= value <= FLOAT_MAX


class Report:
    """The problems of one trace, at most MAX_PER_CODE per code. Problems found in a trace
    read from the artifact's format name its fields (`src`, `to`), not ours."""

    def __init__(self, label: str, fmt: str) -> None:
        self.label, self.format = label, fmt
        self.items, self.counts = list[TraceProblem](), Counter[str]()
        self.non_finite: set[str] = set()

    def add(self, pointer: str, code: str, message: str, hint: str = "") -> None:
        if code == "non-finite":  # the parser and the item checks may both flag one path
            if pointer in self.non_finite:
                return
            self.non_finite.add(pointer)
        self.counts[code] += 1
        if self.counts[code] <= MAX_PER_CODE:
            if self.format == "artifact":
                pointer = their_pointer(pointer)
            self.items.append(TraceProblem(self.label, pointer, code, message, hint))

    def errors(self) -> bool:
        return any(CODES[code][0] == "error" for code in self.counts)

    def finish(self) -> list[TraceProblem]:
        for code, n in sorted(self.counts.items()):
            if n > MAX_PER_CODE:
                more = f"... and {n - MAX_PER_CODE:,} more"
                self.items.append(TraceProblem(self.label, "$", code, more))
        return self.items


def _explain(rep: Report, section: str | None, item: Any, base: str) -> None:
    errors = _validator(rep.format, section).iter_errors(item)
    for err in sorted(errors, key=lambda e: list(e.path)):
        code = "negative-value" if err.validator in ("minimum", "exclusiveMinimum") else "schema"
        rep.add(_pointer(base, err.absolute_path), code, err.message)


def _column_ok(values: list[Any], rule: tuple[Any, Any, set[str] | None]) -> bool:
    """Whether every value passes the per-item check of one field; C-level passes only."""
    kind, minimum, allowed = rule
    if allowed is not None:
        return set(map(type, values)) <= {str} and set(values) <= allowed
    if kind == "string":
        return set(map(type, values)) <= {str} and (minimum is None or all(values))
    if kind in ("number", "integer"):
        types = set(map(type, values))
        if not types <= {int, float}:
            return False
        if kind == "integer" and float in types and not all(map(_integral, values)):
            return False
        if not values:
            return True
        low, high = min(values), max(values)
        in_range = kind == "integer" or (low >= -FLOAT_MAX and high <= FLOAT_MAX)  # floats
        return in_range and (minimum is None or low >= minimum)
    return all(map(_KINDS[kind].__instancecheck__, values)) if kind in _KINDS else True


_KINDS = {"boolean": bool, "object": dict}


def _section_ok(items: list[Any], section: str, fmt: str) -> bool:
    """Whether every item of a section passes the fast checks, tested column by column."""
    spec = _spec(fmt)
    if not items:
        return True
    if set(map(type, items)) != {dict}:
        return False
    present = set(itertools.chain.from_iterable(items))
    fields = spec["fields"][section]
    if section in spec["open"]:
        present &= fields  # an open item may hold any other field
    elif not present <= fields:
        return False
    required, rules = spec["required"][section], spec["rules"][section]
    for key in present:
        if key in required:
            try:
                values = list(map(itemgetter(key), items))
            except KeyError:
                return False
        else:
            values = [item[key] for item in items if key in item]
        if not _column_ok(values, rules[key]):
            return False
    return all(key in present for key in required)


def _item_ok(
    item: Any, fields: set[str], required: tuple[str, ...], rules: Any, is_open: bool
) -> bool:
    if not (
        isinstance(item, dict)
        and all(k in item for k in required)
        and (is_open or all(k in fields for k in item))
    ):
        return False
    for k, value in item.items():
        if k not in rules:  # another field of an open item
            continue
        kind, minimum, allowed = rules[k]
        if allowed is not None:
            ok = isinstance(value, str) and value in allowed
        elif kind == "string":
            ok = isinstance(value, str) and (minimum is None or len(value) >= 1)
        elif kind in ("number", "integer"):
            ok = (
                _number(value)
                and (kind == "number" or _integral(value))
                and (kind == "integer" or -FLOAT_MAX <= value <= FLOAT_MAX)  # a float holds it
                and (minimum is None or value >= minimum)
            )
        else:
            ok = isinstance(value, _KINDS[kind]) if kind in _KINDS else True
        if not ok:
            return False
    return True


def structure(rep: Report, trace: Any) -> dict[str, set[int]]:
    """The schema checks of TRACE in the report's format; returns, per section present as a
    list, the indexes of malformed items."""
    spec = _spec(rep.format)
    if isinstance(trace, Item):  # decoded against the schema already
        return {name: set() for name in spec["sections"] if isinstance(trace.get(name), list)}
    top = dict(trace)
    for name in spec["sections"]:
        if isinstance(top.get(name), list):
            top[name] = top[name][:1]  # an item to count (minItems), checked below
    if next(iter(_validator(rep.format, None).iter_errors(top)), None) is not None:
        _explain(rep, None, top, "$")
    bad: dict[str, set[int]] = {}
    for section in spec["sections"]:
        items = trace.get(section)
        if not isinstance(items, list):
            continue
        bad[section] = set()
        if _section_ok(items, section, rep.format):
            continue
        fields, required, rules = (
            spec["fields"][section],
            spec["required"][section],
            spec["rules"][section],
        )
        is_open = section in spec["open"]
        for i, item in enumerate(items):
            if _item_ok(item, fields, required, rules, is_open):
                continue
            bad[section].add(i)
            pointer = f"$.{section}[{i}]"
            if len(bad[section]) <= MAX_PER_CODE:
                reported = rep.counts.total()
                paths: list[str] = []
                non_finite(item, pointer, paths)
                for where in paths:
                    rep.add(where, "non-finite", NON_FINITE)
                for key, value in item.items() if isinstance(item, dict) else ():
                    if key in rules and rules[key][0] == "number" and _huge_integer(value):
                        rep.add(f"{pointer}.{key}", "out-of-range", OUT_OF_RANGE)
                _explain(rep, section, item, pointer)
                if not paths and rep.counts.total() == reported:  # never leave one unexplained
                    rep.add(pointer, "schema", "item does not match the schema")
            else:
                rep.add(pointer, "schema", "item does not match the schema")
    for name in ("costs", "rewards", "metrics"):  # maps; negative costs are the schema's
        values = trace.get(name)
        for k, v in values.items() if isinstance(values, dict) else ():
            if isinstance(v, float) and not math.isfinite(v):
                rep.add(f"$.{name}.{k}", "non-finite", NON_FINITE)
            elif name != "costs" and _huge_integer(v):  # summed as floats; totals are not
                rep.add(f"$.{name}.{k}", "out-of-range", OUT_OF_RANGE)
    return bad
