"""Declarative record filters, shared by claims, gap tables and scale regimes.

A filter maps a field to a condition; all conditions must hold:

    axis: [a, b]                 the value (or, for a multi-valued axis, any value) is a or b
    axis: {any|all|none: [..]}   some, every or none of the listed values are present
    field: {present: true}       the field has a value
    field: {eq|ne|lt|le|gt|ge: n}  numeric comparison

Filters are data: `filter_problems` checks one against the taxonomy before it is used.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .problems import did_you_mean
from .taxonomy import Taxonomy

if TYPE_CHECKING:
    from .sections import Section
from .yamlio import FieldPath

NUMERIC: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
SETS = ("any", "all", "none")
Where = dict[str, Any]


def _values(data: dict[str, Any], name: str) -> set[str]:
    value = data.get(name)
    if value is None or value == "":
        return set()
    return {str(v) for v in value} if isinstance(value, list) else {str(value)}


def matches(data: dict[str, Any], where: Where) -> bool:
    """Whether a record's data satisfies every condition of WHERE."""
    for name, cond in where.items():
        have = _values(data, name)
        if isinstance(cond, list):
            if not have & {str(c) for c in cond}:
                return False
            continue
        for op, arg in cond.items():
            if op == "present":
                ok = bool(have) == (arg in (True, "true"))
            elif op in SETS:
                want = {str(a) for a in arg}
                ok = {"any": bool(have & want), "all": want <= have, "none": not have & want}[op]
            else:
                value = data.get(name)
                ok = isinstance(value, int | float) and NUMERIC[op](value, arg)
            if not ok:
                return False
    return True


def describe(where: Where) -> str:
    """A short human reading of a filter, for tables and reports."""
    parts = []
    for name, cond in where.items():
        if isinstance(cond, list):
            parts.append(f"{name} in {{{', '.join(map(str, cond))}}}")
        else:
            parts += [f"{name} {op} {arg}" for op, arg in cond.items()]
    return "; ".join(parts) or "all entries"


def filter_problems(
    where: Any, tax: Taxonomy, kind: str, section: Section, path: FieldPath
) -> None:
    """Record in SECTION the problems of one filter (unknown fields, values and operators)."""
    bad = section.problem
    if not isinstance(where, dict):
        bad(path, "claim-invalid", "a filter is a mapping of field: condition")
        return
    axes = {a.id: a for a in tax.axes_for(kind)}
    fields = tax.kinds[kind].fields if kind in tax.kinds else {}
    for name, cond in where.items():
        p = (*path, name)
        if name not in axes and name not in fields:
            guess = did_you_mean(name, [*axes, *fields])
            bad(
                p,
                "unknown-field",
                f"filter names unknown field '{name}'",
                f"did you mean '{guess}'?" if guess else None,
            )
            continue
        conds = {"any": cond} if isinstance(cond, list) else cond
        if not isinstance(conds, dict) or not conds:
            bad(p, "claim-invalid", f"condition on '{name}' must be a list or a mapping")
            continue
        for op, arg in conds.items():
            if op in SETS:
                if name not in axes or not isinstance(arg, list):
                    bad((*p, op), "claim-invalid", f"'{op}' takes a list of {name} values")
                    continue
                for v in arg:
                    if str(v) not in axes[name].by_id:
                        guess = did_you_mean(str(v), axes[name].current_ids)
                        bad(
                            (*p, op),
                            "unknown-value",
                            f"'{v}' is not a value of {name}",
                            f"did you mean '{guess}'?" if guess else None,
                        )
            elif op in NUMERIC:
                if not isinstance(arg, int | float) or isinstance(arg, bool):
                    bad((*p, op), "claim-invalid", f"'{op}' compares with a number")
            elif op == "present":
                if arg not in (True, False, "true", "false"):
                    bad((*p, op), "claim-invalid", "'present' takes true or false")
            else:
                bad(
                    (*p, op),
                    "claim-invalid",
                    f"unknown operator '{op}'",
                    f"one of: {', '.join([*SETS, 'present', *NUMERIC])}",
                )
