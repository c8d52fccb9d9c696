"""An export's bytes read into plain spans: the text decoded (UTF-8, or UTF-16 with its byte
order mark), then read as one JSON document, JSON Lines, JSON records one after another, or OTLP
protobuf, each document by the shapes spans.py and spanshapes.py know (a Claude Code session's
lines together); a span time beyond OpenTelemetry's 64-bit nanoseconds is refused."""

from __future__ import annotations

import json
from typing import Any

from .documents import document_spans
from .spans import ImportError_, Span, json_constant, json_object, loads


def _protobuf(data: bytes) -> list[Span]:
    from importlib.util import find_spec

    if find_spec("opentelemetry") is None or find_spec("opentelemetry.proto") is None:
        raise ImportError_(
            "not JSON; reading it as OTLP protobuf needs opentelemetry-proto: "
            "pip install 'orchtrace[otlp]'"
        )
    from google.protobuf.json_format import MessageToDict
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(data)
    except DecodeError as exc:
        raise ImportError_(f"not JSON, and not OTLP protobuf either: {exc}") from exc
    return document_spans(MessageToDict(request), "")  # bytes ids come as base64: see _id


def _text(data: bytes) -> bytes:
    """DATA as UTF-8: a UTF-16 export with its byte order mark (a Windows redirect) is read,
    a UTF-8 mark dropped; UTF-16 without a mark is refused with what to do."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16").encode()
        except UnicodeDecodeError as exc:
            raise ImportError_(f"UTF-16 that cannot be decoded (byte {exc.start})") from exc
    if data[:3] == b"\xef\xbb\xbf":
        return data[3:]
    head = data[:64]
    if len(head) >= 4 and head.count(0) * 3 >= len(head):
        raise ImportError_("UTF-16 without a byte order mark: re-save it as UTF-8")
    return data


def _stream(text: bytes) -> list[Any]:
    """JSON values one after another (OpenTelemetry's console exporters print pretty records
    with nothing between them but white space); a fault is a JSONDecodeError."""
    decoder = json.JSONDecoder(object_pairs_hook=json_object, parse_constant=json_constant)
    body = text.decode()
    docs: list[Any] = []
    at = 0
    while True:
        while at < len(body) and body[at].isspace():
            at += 1
        if at >= len(body):
            return docs
        doc, at = decoder.raw_decode(body, at)
        docs.append(doc)


class _LineError(Exception):
    """A line of JSON Lines that is not JSON, named by its number; AFTER_FIRST when a line
    before it did read."""

    def __init__(self, message: str, after_first: bool) -> None:
        super().__init__(message)
        self.after_first = after_first


def _json_lines(data: bytes) -> list[Any]:
    docs = []
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            docs.append(loads(line))
        except json.JSONDecodeError as exc:
            raise _LineError(f"line {n}, column {exc.colno}: {exc.msg}", bool(docs)) from None
    return docs


def read_spans(data: bytes) -> list[Span]:
    """The spans of an export: JSON, JSON Lines, JSON records one after another, or OTLP
    protobuf; UTF-8, or UTF-16 with a byte order mark."""
    data = _text(data)
    head = data.lstrip()[:1]
    if head not in (b"{", b"["):
        spans = _protobuf(data)
    else:
        unit = "line"
        try:
            try:
                docs = [loads(data)]
            except json.JSONDecodeError as whole:
                try:
                    docs = _json_lines(data)
                except _LineError as broken:
                    unit = "record"
                    try:
                        docs = _stream(data)
                    except json.JSONDecodeError:
                        if not broken.after_first:
                            raise whole from None
                        # JSON Lines whose first line reads: the line that does not is the news
                        raise ImportError_(f"not JSON Lines: {broken}") from None
        except json.JSONDecodeError as exc:
            raise ImportError_(f"not JSON or JSON Lines: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ImportError_(f"not UTF-8: byte {exc.start} cannot be decoded") from exc
        except RecursionError as exc:
            raise ImportError_("nested too deeply to read") from exc
        spans = []
        from . import claudecode
        from .beside import BELOW

        if len(docs) > 1 and claudecode.is_transcript(docs):
            spans = claudecode.transcript_spans(docs, "", BELOW.get())
        for n, doc in enumerate(docs if not spans else []):
            spans += document_spans(doc, f"{unit} {n + 1}" if len(docs) > 1 else "")
    if not spans:
        raise ImportError_("the export holds no spans")
    for span in spans:
        _in_range(span)
    return spans


def _in_range(span: Span) -> None:
    """Refuse a time beyond OpenTelemetry's fixed64 nanoseconds: no clock gives one, and the
    replay's arithmetic in seconds could not hold it."""
    for edge, ns in (("starts", span.start), ("ends", span.end)):
        if not 0 <= ns < 1 << 64:
            digits = str(ns)
            shown = digits if len(digits) <= 24 else f"{digits[:8]}... ({len(digits)} digits)"
            raise ImportError_(
                f"time-out-of-range: span {span.span_id} of trace {span.trace_id} {edge} at "
                f"{shown} ns, outside the 64-bit nanosecond range of OpenTelemetry times"
            )
