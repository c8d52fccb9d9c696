"""Reads span exports into plain spans: OTLP/JSON (one request, or JSON Lines as the Collector's
file exporter writes), Grafana Tempo's API responses (`{"batches": [...]}` and `{"trace":
{...}}`), Jaeger's (`{"data": [{"spans": [...]}]}`, a list of Jaeger spans, or API v3's
`{"result": {"resourceSpans": [...]}}`), OpenTelemetry JS spans as JSON (a list of objects with
`spanContext` and `[seconds, nanoseconds]` times), Langfuse traces (`{"trace": {...},
"observations": [...]}`, or the observations alone), one Jaeger trace (`{"traceID", "spans",
"processes"}`), the shapes spanshapes.py reads (console and dump formats), Claude Code session
transcripts (claudecode.py), and OTLP protobuf (an ExportTraceServiceRequest, read with
opentelemetry-proto); JSON records may follow one another with only white space between, and a
UTF-16 file with a byte order mark is read.

Langfuse traces and Zipkin v2 span lists are read in apispans.py; documents.py tells which
shape a decoded export has and calls the reader for it.

Ids are kept as written, hex or not; only ids in the base64 form that protobuf's JSON mapping
gives bytes (12 characters ending in `=` for a span, 24 ending in `==` for a trace) are
turned into hex. Integers may be strings (protobuf's JSON mapping writes 64-bit ones so).
Anything malformed is an ImportError_ that says where, and so is a key that an object or an
attribute list repeats (a reader would keep one of its values without a word).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


class ImportError_(ValueError):
    """The input is not a span export this importer reads."""


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int  # nanoseconds
    end: int
    attrs: dict[str, Any]
    service: str = ""
    error: str | None = None
    children: list[Span] = field(default_factory=list)
    ended: bool = True  # False: the export gives no end (a crashed or running span)
    links: list[str] = field(default_factory=list)  # ids of spans it links to (W3C links)
    where: str = ""  # where the export holds it, for messages

    def same_as(self, other: Span) -> bool:
        """Whether OTHER is a copy of this span (children and position aside)."""
        return all(
            getattr(self, k) == getattr(other, k)
            for k in ("trace_id", "span_id", "parent_id", "name", "start", "end", "attrs",
                      "service", "error", "ended", "links")
        )  # fmt: skip


def _id(raw: Any, size: int) -> str:
    """An id as written, unless it is the base64 of SIZE bytes (then its hex)."""
    if not raw:
        return ""
    text = str(raw)
    padded = (size == 8 and len(text) == 12 and text.endswith("=")) or (
        size == 16 and len(text) == 24 and text.endswith("==")
    )
    if padded:
        try:
            return base64.b64decode(text, validate=True).hex()
        except (binascii.Error, ValueError):
            pass
    return text


def integer(raw: Any) -> int | None:
    """An integer, or one written as a string (protobuf's JSON mapping), else None."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit() and len(raw) < 40:
        return int(raw)
    return None


def _value(v: Any) -> Any:
    """An OTLP AnyValue as a plain value."""
    if not isinstance(v, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        return integer(v["intValue"])
    if "arrayValue" in v and isinstance(v["arrayValue"], dict):
        return [_value(x) for x in objects(v["arrayValue"].get("values", []), "values", False)]
    return None


def objects(raw: Any, where: str, strict: bool = True) -> list[Any]:
    """The objects of the list RAW; anything else is an ImportError_ (or skipped)."""
    if not isinstance(raw, list):
        if strict:
            raise ImportError_(f"{where}: expected a list")
        return []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            if strict:
                raise ImportError_(f"{where}[{i}]: expected an object")
            return []
    return raw


def _attributes(raw: Any, where: str) -> dict[str, Any]:
    return _unique_keys(
        [(a["key"], _value(a.get("value"))) for a in objects(raw or [], where)
         if isinstance(a.get("key"), str)],
        f"{where}: attribute",
    )  # fmt: skip


def _unique_keys(pairs: list[tuple[str, Any]], what: str) -> dict[str, Any]:
    """PAIRS as a mapping; a key given twice is an ImportError_ (a reader would keep one of
    the two values without a word)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ImportError_(
                f"duplicate-key: {what} '{key}' is given twice; a reader would keep one of them"
            )
        out[key] = value
    return out


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it repeats a key (JSON readers keep only the last)."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        named = next((f" ({k} {obj[k]})" for k in ("spanId", "spanID", "id") if k in obj), "")
        _unique_keys(pairs, f"an object{named}: key")
    return obj


def json_constant(name: str) -> Any:
    raise ImportError_(f"{name} is not a JSON number")


def loads(data: bytes | str) -> Any:
    """JSON text decoded, refusing what a fast reader (orjson) takes without a word: a key an
    object repeats. NaN and Infinity are not JSON numbers."""
    try:
        return json.loads(data, object_pairs_hook=json_object, parse_constant=json_constant)
    except RecursionError as exc:
        raise ImportError_("nested too deeply to read") from exc


def _otlp_span(s: dict[str, Any], where: str, service: str) -> Span:
    start = integer(s.get("startTimeUnixNano", 0))
    end = integer(s.get("endTimeUnixNano") or 0)
    if start is None or end is None:
        raise ImportError_(f"{where}: start and end times must be integers (nanoseconds)")
    status: dict[str, Any] = s["status"] if isinstance(s.get("status"), dict) else {}
    failed = status.get("code") in (2, "STATUS_CODE_ERROR")
    links = [
        _id(link.get("spanId"), 8)
        for link in objects(s.get("links") or [], f"{where}.links", False)
        if link.get("spanId")
    ]
    return Span(
        _id(s.get("traceId"), 16),
        _id(s.get("spanId"), 8),
        _id(s.get("parentSpanId"), 8) or None,
        str(s.get("name", "")),
        start,
        end,
        _attributes(s.get("attributes"), f"{where}.attributes"),
        service,
        str(status.get("message") or "error") if failed else None,
        ended=end > 0,
        links=links,
        where=where,
    )


def _resource_spans(batches: Any, where: str) -> list[Span]:
    spans = []
    for i, rs in enumerate(objects(batches, where)):
        at = f"{where}[{i}]"
        resource = rs.get("resource") if isinstance(rs.get("resource"), dict) else {}
        service = _attributes(resource.get("attributes"), f"{at}.resource.attributes")
        name = str(service.get("service.name") or "")
        scopes = rs.get("scopeSpans", rs.get("instrumentationLibrarySpans", []))
        for j, ss in enumerate(objects(scopes, f"{at}.scopeSpans")):
            for k, s in enumerate(objects(ss.get("spans", []), f"{at}.scopeSpans[{j}].spans")):
                spans.append(_otlp_span(s, f"{at}.scopeSpans[{j}].spans[{k}]", name))
    return spans


def _jaeger_span(s: dict[str, Any], where: str, processes: dict[str, Any]) -> Span:
    start, duration = integer(s.get("startTime")), integer(s.get("duration", 0))
    missing = [k for k in ("traceID", "spanID", "startTime") if k not in s]
    if missing:
        raise ImportError_(f"{where}: looks like a Jaeger span, but it lacks {', '.join(missing)}")
    if start is None or duration is None:
        raise ImportError_(f"{where}: startTime and duration must be integers (microseconds)")
    tags = _unique_keys(
        [(str(t["key"]), t.get("value")) for t in objects(s.get("tags") or [], f"{where}.tags")
         if "key" in t],
        f"{where}: tag",
    )  # fmt: skip
    refs = objects(s.get("references") or [], f"{where}.references")
    parent = next((r.get("spanID") for r in refs if r.get("refType") == "CHILD_OF"), None)
    links = [str(r["spanID"]) for r in refs if r.get("refType") == "FOLLOWS_FROM" and
             r.get("spanID")]  # fmt: skip
    process = s.get("process") or processes.get(str(s.get("processID")), {})
    failed = tags.get("error") in (True, "true") or tags.get("otel.status_code") == "ERROR"
    return Span(
        str(s.get("traceID", "")),
        str(s.get("spanID", "")),
        str(parent) if parent else None,
        str(s.get("operationName", "")),
        start * 1000,
        (start + duration) * 1000,
        tags,
        str(process.get("serviceName", "")) if isinstance(process, dict) else "",
        str(tags.get("otel.status_description") or "error") if failed else None,
        links=links,
        where=where,
    )


def as_mapping(raw: Any) -> dict[str, Any]:
    """RAW if it is an object, else {} (a field the export leaves out or writes oddly)."""
    return raw if isinstance(raw, dict) else {}


def json_mapping(raw: Any) -> dict[str, Any]:
    """RAW if a mapping, else the mapping it holds as JSON text, else an empty one."""
    if isinstance(raw, str | bytes):
        try:
            raw = loads(raw)
        except ImportError_:  # a repeated key: refused, as everywhere
            raise
        except (ValueError, UnicodeDecodeError):
            return {}
    return as_mapping(raw)


def _hrtime(raw: Any) -> int | None:
    """OpenTelemetry JS's time, [seconds, nanoseconds], in nanoseconds."""
    if not (isinstance(raw, list) and len(raw) == 2):
        return None
    seconds, nanos = integer(raw[0]), integer(raw[1])
    return None if seconds is None or nanos is None else seconds * 1_000_000_000 + nanos


def _js_span(s: dict[str, Any], where: str) -> Span:
    """A span as OpenTelemetry JS holds it (ReadableSpan), written as JSON."""
    start, end = _hrtime(s.get("startTime")), _hrtime(s.get("endTime", [0, 0]))
    if start is None or end is None:
        raise ImportError_(f"{where}: startTime and endTime must be [seconds, nanoseconds]")
    context, status = as_mapping(s.get("spanContext")), as_mapping(s.get("status"))
    parent_id = as_mapping(s.get("parentSpanContext")).get("spanId") or s.get("parentSpanId")
    service = as_mapping(as_mapping(s.get("resource")).get("attributes")).get("service.name")
    return Span(
        str(context.get("traceId", "")),
        str(context.get("spanId", "")),
        str(parent_id) if parent_id else None,
        str(s.get("name", "")),
        start,
        end,
        dict(as_mapping(s.get("attributes"))),
        str(service or ""),
        str(status.get("message") or "error") if status.get("code") == 2 else None,
        ended=end > 0,
        where=where,
    )


# an ISO 8601 time with up to nine digits of fraction (Go writes nanoseconds)
_ISO = re.compile(
    r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?\d*(Z|[+-]\d{2}:?\d{2})?$"
)


def iso_ns(raw: Any, where: str) -> int:
    """An ISO 8601 time in nanoseconds since the epoch, to the nanosecond (UTC unless it says
    otherwise)."""
    m = _ISO.match(str(raw).strip())
    try:
        if m is None:
            raise ValueError(raw)
        whole, fraction, zone = m.groups()
        moment = datetime.fromisoformat(whole + (zone or "").replace("Z", "+00:00"))
    except ValueError as exc:  # not the form, or no such day (a month 13)
        raise ImportError_(f"{where}: {raw!r} is not an ISO 8601 time") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = int(moment.timestamp())
    return seconds * 1_000_000_000 + int((fraction or "0").ljust(9, "0"))


def _jaeger_trace(t: dict[str, Any], at: str) -> list[Span]:
    """The spans of one Jaeger trace object ({"traceID", "spans", "processes"})."""
    processes: dict[str, Any] = t["processes"] if isinstance(t.get("processes"), dict) else {}
    where = f"{at}spans"
    return [
        _jaeger_span(s, f"{where}[{k}]", processes)
        for k, s in enumerate(objects(t.get("spans", []), where))
    ]
