"""Which shape a decoded export has, and its spans: OTLP JSON (resourceSpans), Tempo, Jaeger
(its UI's files and both APIs), Zipkin, Langfuse, OpenTelemetry JS, Datadog's trace lists, and
every shape spanshapes.py knows; anything else is refused with what it looks like."""

from __future__ import annotations

from typing import Any

from . import spanshapes
from .apispans import is_observation, is_zipkin_span, langfuse_spans, zipkin_spans
from .spans import (
    ImportError_,
    Span,
    _jaeger_span,
    _jaeger_trace,
    _js_span,
    _resource_spans,
    objects,
)


def _listed(doc: list[Any], where: str) -> list[Span]:
    """The spans of a list: Jaeger spans as its UI writes them, OpenTelemetry JS spans,
    Langfuse observations, a Datadog trace list (a list of lists), or spans of any shape
    spanshapes reads."""
    if doc and all(isinstance(t, list) for t in doc):
        # Zipkin's /api/v2/traces: one list a trace
        if all(t and is_zipkin_span(t[0]) for t in doc):
            at = [f"{where}[{i}]" for i in range(len(doc))]
            return [sp for t, w in zip(doc, at, strict=True)
                    for sp in zipkin_spans(objects(t, w), w)]  # fmt: skip
        return [  # Datadog: a list of traces
            sp
            for i, trace in enumerate(doc)
            for k, s in enumerate(trace)
            for sp in _listed_item(s, f"{where}[{i}][{k}]")
        ]
    items = objects(doc, where, strict=False)
    if not items and doc:
        raise ImportError_(spanshapes.refusal(doc, where))
    first = items[0] if items else {}
    if "spanContext" in first:
        return [_js_span(s, f"{where}[{i}]") for i, s in enumerate(items)]
    if is_observation(first):  # Langfuse's, with no trace
        return langfuse_spans({"observations": items}, f"{where}." if where else "")
    if spanshapes.shape(first) is not None:
        return [sp for i, s in enumerate(items) for sp in _listed_item(s, f"{where}[{i}]")]
    if "spanID" in first or "operationName" in first:
        return [_jaeger_span(s, f"{where}[{i}]", {}) for i, s in enumerate(items)]
    if is_zipkin_span(first):
        return zipkin_spans(items, where)
    raise ImportError_(spanshapes.refusal(doc, where))


def _listed_item(item: Any, where: str) -> list[Span]:
    kind = spanshapes.shape(item)
    if kind is None:
        raise ImportError_(spanshapes.refusal(item, where))
    return spanshapes.read(kind, item, where)


def document_spans(doc: Any, where: str) -> list[Span]:
    """The spans of one decoded export, in any of the shapes in the module docstring."""
    if isinstance(doc, list):
        return _listed(doc, where)
    if not isinstance(doc, dict):
        raise ImportError_(f"{where or 'the export'}: expected a JSON object or list")
    prefix = f"{where}." if where else ""
    if "resourceSpans" in doc:
        return _resource_spans(doc["resourceSpans"], f"{prefix}resourceSpans")
    if "observations" in doc:  # Langfuse: before Tempo, whose v2 responses hold a "trace" too
        return langfuse_spans(doc, prefix)
    if is_observation(doc):  # one Langfuse observation: a line of an observations export
        return langfuse_spans({"observations": [doc]}, prefix)
    if isinstance(doc.get("result"), dict):  # Jaeger's API v3
        return document_spans(doc["result"], f"{prefix}result")
    if "batches" in doc:  # Tempo
        return _resource_spans(doc["batches"], f"{prefix}batches")
    if isinstance(doc.get("spans"), list) and "final_output" in doc:  # any-agent's AgentTrace
        return _listed(doc["spans"], f"{prefix}spans")
    kind = spanshapes.shape(doc)
    if kind is not None:  # before Tempo's v2 API: AgentOps' JSON holds a "trace" too
        return spanshapes.read(kind, doc, where)
    if isinstance(doc.get("trace"), dict):  # Tempo's v2 API
        inner = doc["trace"]
        key = "resourceSpans" if "resourceSpans" in inner else "batches"
        return _resource_spans(inner.get(key, []), f"{prefix}trace.{key}")
    if "data" in doc:  # Jaeger's API
        return [
            s
            for i, t in enumerate(objects(doc["data"], f"{prefix}data"))
            for s in _jaeger_trace(t, f"{prefix}data[{i}].")
        ]
    if "traceID" in doc and isinstance(doc.get("spans"), list):  # one Jaeger trace
        return _jaeger_trace(doc, prefix)
    raise ImportError_(spanshapes.refusal(doc, where))
