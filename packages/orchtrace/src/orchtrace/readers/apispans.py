"""The span exports of two trace stores read into plain spans: Langfuse traces (`{"trace": ...,
"observations": [...]}`, or the observations alone; each observation becomes the span its
instrumentation wrote, its type and usage as the attributes Langfuse's own SDK writes) and
Zipkin v2 span lists (microsecond times, `localEndpoint`, a shared server half under its client).
"""

from __future__ import annotations

from typing import Any

from .spans import ImportError_, Span, as_mapping, integer, iso_ns, json_mapping, objects


def langfuse_spans(doc: dict[str, Any], where: str) -> list[Span]:
    """The observations of a Langfuse trace, as spans (see the module docstring)."""
    trace = as_mapping(doc.get("trace")) or doc
    spans = []
    for i, o in enumerate(objects(doc["observations"], f"{where}observations")):
        at = f"{where}observations[{i}]"
        start = iso_ns(o.get("startTime"), f"{at}.startTime")
        end = iso_ns(o["endTime"], f"{at}.endTime") if o.get("endTime") else 0
        meta = json_mapping(o.get("metadata"))
        attrs = dict(as_mapping(meta.get("attributes")))
        attrs.setdefault("langfuse.observation.type", str(o.get("type") or "span").lower())
        if isinstance(meta.get("langgraph_node"), str):  # the LangGraph node it runs in
            attrs.setdefault("langgraph_node", meta["langgraph_node"])
        if usage := as_mapping(o.get("usageDetails")):
            attrs.setdefault("langfuse.observation.usage_details", usage)
        if cost := as_mapping(o.get("costDetails")):
            attrs.setdefault("langfuse.observation.cost_details", cost)
        service = as_mapping(meta.get("resourceAttributes")).get("service.name")
        parent = o.get("parentObservationId")
        spans.append(
            Span(
                str(o.get("traceId") or trace.get("id") or ""),
                str(o.get("id", "")),
                str(parent) if parent else None,
                str(o.get("name", "")),
                start,
                end,
                attrs,
                str(service or ""),
                str(o.get("statusMessage") or "error") if o.get("level") == "ERROR" else None,
                ended=end > 0,
                where=at,
            )
        )
    return spans


def is_observation(item: dict[str, Any]) -> bool:
    """Whether ITEM is a Langfuse observation (of a bare list, or a line of JSON Lines)."""
    observed = "type" in item or "parentObservationId" in item
    return observed and isinstance(item.get("startTime"), str)


def is_zipkin_span(item: Any) -> bool:
    """Whether ITEM looks like a Zipkin v2 span."""
    return isinstance(item, dict) and "traceId" in item and "id" in item and (
        "timestamp" in item or "localEndpoint" in item)  # fmt: skip


def zipkin_spans(items: list[dict[str, Any]], where: str) -> list[Span]:
    """Zipkin v2 spans (a list of {traceId, id, parentId, name, timestamp and duration in
    microseconds, localEndpoint, kind, tags}). A server span `shared` with the client span of
    the same id (one RPC, both halves) becomes the client span's child, under the id
    `<id>.server`: span ids stay unique, and the server's work is within the call. A span whose
    parent is such a shared id was started by the server (the client half waits on the call),
    so it goes under the server half."""
    clients = {str(s.get("id")) for s in items if s.get("kind") == "CLIENT"}
    shared = {str(s.get("id")) for s in items
              if s.get("kind") == "SERVER" and s.get("shared") is True} & clients  # fmt: skip
    out = []
    for i, s in enumerate(items):
        at = f"{where}[{i}]"
        missing = [k for k in ("traceId", "id", "timestamp") if k not in s]
        if missing:
            lacking = ", ".join(missing)
            raise ImportError_(f"{at}: looks like a Zipkin span, but it lacks {lacking}")
        start, duration = integer(s.get("timestamp")), integer(s.get("duration", 0))
        if start is None or duration is None:
            raise ImportError_(f"{at}: timestamp and duration must be integers (microseconds)")
        tags: dict[str, Any] = as_mapping(s.get("tags"))
        span_id, parent = str(s["id"]), s.get("parentId")
        if s.get("kind") == "SERVER" and s.get("shared") is True and span_id in clients:
            span_id, parent = f"{span_id}.server", span_id
        elif parent is not None and str(parent) in shared:
            parent = f"{parent}.server"
        endpoint = as_mapping(s.get("localEndpoint"))
        failed = "error" in tags
        out.append(
            Span(
                str(s["traceId"]),
                span_id,
                str(parent) if parent else None,
                str(s.get("name", "")),
                start * 1000,
                (start + duration) * 1000,
                dict(tags),
                str(endpoint.get("serviceName", "")),
                str(tags.get("error") or "error") if failed else None,
                ended="duration" in s,
                where=at,
            )
        )
    return out
