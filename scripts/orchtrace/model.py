"""Typed decoding: a whole trace parsed and checked against the schema's item rules in one C pass.

msgspec decodes JSON straight into compact structs whose field types are derived here from
traces/trace.schema.json, so a valid million-event trace is read and its items checked faster
than a plain parse, in less memory than `json.load`. Decoding stops at the first violation; the
validator then re-reads the trace as plain JSON to report every problem. Structs answer
`item["key"]`, `"key" in item` and `item.get("key")` like the dicts of that slower path.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

import msgspec

from .trace import schema

SECTIONS = ("agents", "events", "edges", "rewards")
# what a property of a section item may say; anything more needs a rule here and in validate.py
SUPPORTED = {"type", "minimum", "minLength", "enum", "description", "properties"}
SUPPORTED_OBJECT = {"type", "properties", "additionalProperties", "required", "description"}


class Item(msgspec.Struct):
    """A decoded object with mapping-style reads. An absent field reads None: every field's
    type refuses JSON null, so None always means absent."""

    def __getitem__(self, key: str) -> Any:
        value = getattr(self, key) if key in self.__struct_fields__ else None
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self.__struct_fields__ and getattr(self, str(key)) is not None

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


def _field_type(name: str, spec: dict[str, Any]) -> Any:
    extra = set(spec) - (SUPPORTED_OBJECT if spec.get("type") == "object" else SUPPORTED)
    if extra:
        raise ValueError(f"schema property {name!r} uses {sorted(extra)}; teach model.py first")
    if "enum" in spec:
        return Literal[tuple(spec["enum"])]
    kind, minimum = spec.get("type"), spec.get("minimum")
    if kind == "string":
        return (
            Annotated[str, msgspec.Meta(min_length=spec["minLength"])]
            if "minLength" in spec
            else str
        )
    if kind == "integer":
        return int if minimum is None else Annotated[int, msgspec.Meta(ge=minimum)]
    if kind == "object" and "properties" in spec:
        return _struct(name.capitalize(), spec)
    if kind == "number":  # integers past 64 bits take the plain path, which checks their range
        low = -(2**63) if minimum is None else minimum
        return (
            Annotated[int, msgspec.Meta(ge=low, le=2**63 - 1)]
            | Annotated[float, msgspec.Meta(ge=low)]
        )
    raise ValueError(f"schema property {name!r} has type {kind!r}; teach model.py first")


def _struct(name: str, spec: dict[str, Any], fields: dict[str, Any] | None = None) -> Any:
    required = set(spec.get("required", []))
    types = fields or {k: _field_type(k, v) for k, v in spec["properties"].items()}
    return msgspec.defstruct(
        name,
        [(k, t) if k in required else (k, t, None) for k, t in types.items()],
        bases=(Item,),
        forbid_unknown_fields=spec.get("additionalProperties") is False,
        kw_only=True,
        gc=False,  # fields hold strings and numbers only: no cycles to collect
    )


@lru_cache(maxsize=1)
def _decoder() -> msgspec.json.Decoder[Any]:
    s = schema()
    fields: dict[str, Any] = {}
    for k, v in s["properties"].items():
        item = _struct(k[:-1].capitalize(), v["items"]) if k in SECTIONS else None
        fields[k] = _field_type(k, v) if item is None else list[item]  # type: ignore[valid-type]
    return msgspec.json.Decoder(_struct("Trace", s, fields))


def decode(text: str | bytes) -> Any:
    """The trace as structs, or raises msgspec.DecodeError (ValidationError is a subclass)."""
    return _decoder().decode(text)


class _Id(msgspec.Struct, gc=False):
    id: str


class _Ends(msgspec.Struct, gc=False):
    source: str
    target: str


class _Ids(msgspec.Struct, gc=False):
    events: list[_Id] = []
    edges: list[_Ends] = []


def decode_ids(text: str | bytes) -> tuple[list[str], list[str]]:
    """The event ids, and the edges' sources then targets, everything else skipped: a third
    of the time of a full decode. Any trace `decode` accepts gives the same items in order."""
    ids = msgspec.json.decode(text, type=_Ids)
    ends = [e.source for e in ids.edges]
    ends += [e.target for e in ids.edges]
    return [e.id for e in ids.events], ends
