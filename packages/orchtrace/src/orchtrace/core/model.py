"""Typed decoding: a whole trace parsed and checked against the schema's item rules in one C pass.

msgspec decodes JSON straight into compact structs whose field types are derived here from the
format's schema (traces/trace.schema.json, or traces/artifact.schema.json for the survey
artifact's format), so a valid million-event trace is read and its items checked faster than a
plain parse, in less memory than `json.load`. Struct attributes carry our field names in both
formats (the artifact's `src`, `dst`, `from` and `to` are read as `source`, `target`, `sender`
and `target`). Decoding stops at the first violation, and a trace whose keys the structs do not
all account for (a repeated key, a field the structs skip) is refused too; the validator then
re-reads it as plain JSON to report every problem. Structs answer `item["key"]`, `"key" in item`
and `item.get("key")` like the dicts of that slower path.
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from .schema import schema

# our name -> the artifact's, per section
RENAMES = {
    "events": {"sender": "from", "target": "to"},
    "edges": {"source": "src", "target": "dst"},
}
CARRIED = "subtype"  # an artifact event's field naming the type of ours it carries (step, stop)
# what a property may say; anything more needs a rule here and in validate.py
SUPPORTED = {"type", "minimum", "minLength", "enum", "description"}
SUPPORTED_OBJECT = {"type", "properties", "additionalProperties", "required", "description"}
SUPPORTED_ARRAY = {"type", "items", "minItems", "description"}


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
        value = getattr(self, key) if key in self.__struct_fields__ else None
        return default if value is None else value


def _number(minimum: Any) -> Any:
    low = -(2**63) if minimum is None else minimum  # integers past 64 bits take the plain path
    return (
        Annotated[int, msgspec.Meta(ge=low, le=2**63 - 1)] | Annotated[float, msgspec.Meta(ge=low)]
    )


def _field_type(
    name: str, spec: dict[str, Any], renames: dict[str, dict[str, str]] | None = None
) -> Any:
    kind = spec.get("type")
    allowed = {"object": SUPPORTED_OBJECT, "array": SUPPORTED_ARRAY}.get(kind or "", SUPPORTED)
    extra = set(spec) - allowed
    if extra:
        raise ValueError(f"schema property {name!r} uses {sorted(extra)}; teach model.py first")
    if "enum" in spec:
        return Literal[tuple(spec["enum"])]
    minimum = spec.get("minimum")
    if kind == "string":
        length = spec.get("minLength")
        return str if length is None else Annotated[str, msgspec.Meta(min_length=length)]
    if kind == "integer":
        return int if minimum is None else Annotated[int, msgspec.Meta(ge=minimum)]
    if kind == "number":
        return _number(minimum)
    if kind == "boolean":
        return bool
    if kind == "array":
        item = _field_type(name, spec["items"], renames or {})
        return Annotated[list[item], msgspec.Meta(min_length=spec.get("minItems", 0))]  # type: ignore[valid-type]
    if kind == "object":
        more = spec.get("additionalProperties")
        if isinstance(more, dict):  # a map: costs, rewards, metrics (required keys: see decode)
            return dict[str, _field_type(name, more)]  # type: ignore[misc]
        if "properties" not in spec:
            return dict[str, Any]
        return _struct(name, spec, renames or {})
    raise ValueError(f"schema property {name!r} has type {kind!r}; teach model.py first")


def _struct(
    name: str,
    spec: dict[str, Any],
    renames: dict[str, dict[str, str]],
    extension: dict[str, Any] | None = None,
) -> Any:
    """A struct for an object of SPEC named NAME (a section's name for its items), with the
    fields of EXTENSION added under our names (an open object's fields that we read)."""
    required = set(spec.get("required", []))
    ours = {theirs: mine for mine, theirs in renames.get(name, {}).items()}
    fields = []
    for key, sub in spec["properties"].items():
        kind = _field_type(f"{name}.{key}", sub, renames)
        mine = ours.get(key, key)
        if key in required:
            fields.append((mine, kind) if mine == key else (mine, kind, msgspec.field(name=key)))
        else:
            fields.append((mine, kind, msgspec.field(default=None, name=key)))
    fields += [(k, t, None) for k, t in (extension or {}).items()]
    return msgspec.defstruct(
        name.capitalize(),
        fields,
        bases=(Item,),
        forbid_unknown_fields=spec.get("additionalProperties") is False,
        kw_only=True,
        omit_defaults=True,  # re-encoded, a struct writes the keys it was read from (see decode)
        gc=False,  # fields hold strings, numbers and plain maps only: no cycles to collect
    )


def _extension() -> dict[str, Any]:
    """The fields of our events that an artifact event may carry under the same name: read with
    our meaning when they have our type (otherwise the trace takes the plain path, where such a
    field is kept as it is, unread)."""
    ours = schema("current")["properties"]["events"]["items"]["properties"]
    theirs = schema("artifact")["properties"]["events"]["items"]["properties"]
    named = set(theirs) | set(RENAMES["events"]) | {"attributes"}
    fields = {k: _field_type(k, v, {}) for k, v in ours.items() if k not in named}
    fields[CARRIED] = Literal["step", "stop"]
    return fields


@lru_cache(maxsize=2)
def _decoder(fmt: str) -> msgspec.json.Decoder[Any]:
    s = schema(fmt)
    renames = RENAMES if fmt == "artifact" else {}
    fields = []
    for k, v in s["properties"].items():
        if v.get("type") == "array" and "properties" in v["items"]:
            extension = _extension() if fmt == "artifact" and k == "events" else None
            item = _struct(k, v["items"], renames, extension)
            kind: Any = Annotated[list[item], msgspec.Meta(min_length=v.get("minItems", 0))]  # type: ignore[valid-type]
        else:
            kind = _field_type(k, v, renames)
        fields.append((k, kind) if k in s["required"] else (k, kind, None))
    top = msgspec.defstruct(
        "Trace",
        fields,
        bases=(Item,),
        forbid_unknown_fields=True,
        kw_only=True,
        omit_defaults=True,
        gc=False,
    )
    return msgspec.json.Decoder(top)


def guess_format(text: str | bytes) -> str:
    """Which format to try first, from the text's first 64 KiB: the artifact's names its task
    `task_id` and its edge ends `src`; ours has neither."""
    head, end = (text[:65536].encode(), None) if isinstance(text, str) else (text, 65536)
    found = head.find(b'"task_id"', 0, end) >= 0 or head.find(b'"src"', 0, end) >= 0
    return "artifact" if found else "current"


_ENCODER = msgspec.json.Encoder()
CHUNK = 1 << 16  # items written back at a time, into one buffer: fresh memory is slow to touch
WHOLE = 1 << 20  # a trace smaller than this is written back at once


def _count(data: bytes | bytearray) -> int:
    """How many colons DATA holds: compared as an array (faster than bytes.count), a
    mebibyte at a time."""
    view = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    return sum(int(np.count_nonzero(view[i : i + step] == 58)) for i in range(0, len(view), step))


def _colons(sections: list[Any]) -> int:
    """How many colons the SECTIONS (lists of structs) hold, written back as JSON."""
    buffer, count = bytearray(), 0
    for items in sections:
        for start in range(0, len(items), CHUNK):
            _ENCODER.encode_into(items[start : start + CHUNK], buffer)
            count += _count(buffer)
    return count


def decode(text: str | bytes, fmt: str, keys: bool = True) -> Any:
    """The trace as structs, or raises msgspec.DecodeError (ValidationError is a subclass).

    Also refused, unless KEYS is false (then the caller runs `keys_kept` itself): a trace with a
    key the structs do not hold, a repeated key above all (JSON readers keep the last one
    without a word)."""
    trace = _decoder(fmt).decode(text)
    if fmt == "artifact" and not {"tokens", "wall_clock_s"} <= trace.costs.keys():
        raise msgspec.ValidationError("costs needs tokens and wall_clock_s")
    if keys and not keys_kept(text, trace):
        raise msgspec.ValidationError("a key is repeated or not read")
    return trace


def keys_kept(text: str | bytes, trace: Any) -> bool:
    """Whether TRACE, decoded from TEXT, kept every key of it. Every key is followed by a colon,
    and the structs, written back, hold the same strings, so the text has as many colons as the
    structs written back exactly when every key was kept. A colon written as an escape in a
    string (backslash, u003a) comes back as a colon and would make up for a key lost, so each
    such escape counts as a colon of the text (an escaped backslash before `u003a`, counted
    too, only sends to the plain reading a trace that it then accepts)."""
    raw = text if isinstance(text, bytes) else text.encode()
    colons = _count(raw)
    if b"\\" in raw:  # escapes are rare: look for them only when there is a backslash
        colons += raw.count(b"\\u003a") + raw.count(b"\\u003A")
    if len(raw) < WHOLE:
        return colons == _count(_ENCODER.encode(trace))
    sections = {k: getattr(trace, k) for k in ("agents", "events", "edges") if k in trace}
    rest = msgspec.structs.replace(trace, **{key: [] for key in sections})
    return colons == _colons([[rest], *sections.values()])


class _Id(msgspec.Struct, gc=False):
    id: str


class _Ends(msgspec.Struct, gc=False):
    source: str | None = None
    target: str | None = None
    src: str | None = None
    dst: str | None = None


class _Ids(msgspec.Struct, gc=False):
    events: list[_Id] = []
    edges: list[_Ends] = []


def decode_ids(text: str | bytes) -> tuple[list[str], list[str]]:
    """The event ids, and the edges' sources then targets (under our names or the artifact's),
    everything else skipped: a third of the time of a full decode. Any trace `decode` accepts
    gives the same items in order."""
    ids = msgspec.json.decode(text, type=_Ids)
    edges = ids.edges
    ours = not edges or edges[0].source is not None
    source, target = (
        (attrgetter("source"), attrgetter("target"))
        if ours
        else (attrgetter("src"), attrgetter("dst"))
    )
    ends = list(map(source, edges))
    ends += map(target, edges)
    return [e.id for e in ids.events], ends
