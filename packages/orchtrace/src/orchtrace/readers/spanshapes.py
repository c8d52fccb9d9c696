"""The span exports that print or dump spans rather than send them, read into plain spans
(spans.Span): OpenTelemetry Python's `ReadableSpan.to_json()` (what its ConsoleSpanExporter
prints, pretty-printed records one after another), Arize Phoenix's span JSON (the same
`context` and ISO times, with `span_kind` and attributes nested by dots, or its spans
dataframe's records with `context.*` and `attributes.*` columns), OpenTelemetry Go's
stdouttrace (`SpanContext`, `Parent`, `StartTime`), Datadog trace lists (a list of traces,
each a list of spans, `start` and `duration` in nanoseconds, tags in `meta` and `metrics`) and
AgentOps' trace API JSON (`{"trace": ..., "spans": [...]}` with `span_name` and ISO times;
its `agentops.span.kind` agent, llm and tool are read as the GenAI operations invoke_agent,
chat and execute_tool) and the rows of the OpenTelemetry Collector's ClickHouse exporter
(`TraceId`, `SpanId`, `Timestamp`, `Duration`, `SpanAttributes`; OpenLLMetry's
`traceloop.span.kind` agent and tool and `llm.request.type` chat read as GenAI operations),
ATIF trajectories (`schema_version` "ATIF-...", `steps`: see _atif_spans), and SWE-agent and
mini-SWE-agent trajectories (steptraces.py). An export that records no times (those two, an
ATIF step without one, an AgentOps span without a start) is read in steps mode (steptraces.py).

`shape` names the shape a decoded document is in, and `refusal` says, for one that no reader
takes, which shape it looks like and what it lacks.
"""

from __future__ import annotations

from typing import Any

from .atif import atif_spans, is_atif
from .spans import ImportError_, Span, as_mapping, integer, iso_ns
from .steptraces import lay_out, mini_swe_spans, swe_agent_spans

_GO_ZERO = "0001-01-01T00:00:00Z"  # Go's zero time: a span not ended


def flatten(raw: Any, prefix: str = "") -> dict[str, Any]:
    """Nested attributes (Phoenix's, AgentOps') as dotted keys: {"llm": {"model": m}} is
    {"llm.model": m}; lists and plain values are kept as they are."""
    out: dict[str, Any] = {}
    stack = [(prefix, raw)]
    while stack:
        at, value = stack.pop()
        if isinstance(value, dict) and value:
            stack.extend((f"{at}.{k}" if at else str(k), v) for k, v in value.items())
        elif at:
            out[at] = value
    return out


def _hex_id(raw: Any, size: int = 8) -> str:
    """An id as OpenTelemetry Python prints it (0x-prefixed hex), as a decimal integer
    (any-agent's AgentTrace: SIZE bytes in hex, as OTLP writes them), or as written."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return format(raw, f"0{size * 2}x")
    text = str(raw or "")
    return text[2:] if text.startswith("0x") else text


def _ns(raw: Any, where: str) -> int:
    """A time: integer nanoseconds since the epoch (any-agent), or ISO 8601 text."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    return iso_ns(raw, where)


def _python_span(s: dict[str, Any], where: str) -> Span:
    """ReadableSpan.to_json(), Phoenix's span JSON, or a span of any-agent's AgentTrace (the
    same shape with integer ids and nanosecond times, and its parent's context in `parent`)."""
    context = as_mapping(s.get("context"))
    status = as_mapping(s.get("status"))
    code = str(status.get("status_code") or s.get("status_code") or "")
    attrs = flatten(s.get("attributes"))
    if s.get("span_kind") and "openinference.span.kind" not in attrs:
        attrs["openinference.span.kind"] = str(s["span_kind"])
    service = flatten(as_mapping(s.get("resource")).get("attributes")).get("service.name")
    end = s.get("end_time")
    links = [_hex_id(as_mapping(x.get("context")).get("span_id")) for x in s.get("links") or []
             if isinstance(x, dict)]  # fmt: skip
    failed = code.upper().endswith("ERROR")
    message = status.get("description") or s.get("status_message") or "error"
    parent = s.get("parent_id") or as_mapping(s.get("parent")).get("span_id")  # any-agent: parent
    return Span(
        _hex_id(context.get("trace_id"), 16),
        _hex_id(context.get("span_id")),
        _hex_id(parent) or None,
        str(s.get("name", "")),
        _ns(s.get("start_time"), f"{where}.start_time"),
        _ns(end, f"{where}.end_time") if end else 0,
        attrs,
        str(service or ""),
        str(message) if failed else None,
        ended=bool(end),
        links=[k for k in links if k],
        where=where,
    )


def _frame_span(s: dict[str, Any], where: str) -> Span:
    """A row of Phoenix's spans dataframe (get_spans_dataframe) written as JSON records: the
    context and attributes flattened into `context.*` and `attributes.*` columns, null where a
    span lacks a column, and token counts as floats (pandas' integers in a column with gaps)."""
    nested: dict[str, Any] = {"context": {}, "attributes": {}}
    for key, value in s.items():
        group, _, rest = key.partition(".")
        if group in nested and rest:
            if value is None:
                continue
            if "token_count" in rest and isinstance(value, float) and value.is_integer():
                value = int(value)
            nested[group][rest] = value
        else:
            nested[key] = value
    return _python_span(nested, where)


def _go_attributes(raw: Any) -> dict[str, Any]:
    """stdouttrace's [{"Key": k, "Value": {"Type": t, "Value": v}}] as a mapping."""
    out = {}
    for a in raw or []:
        if isinstance(a, dict) and isinstance(a.get("Key"), str):
            out[a["Key"]] = as_mapping(a.get("Value")).get("Value")
    return out


def _go_span(s: dict[str, Any], where: str) -> Span:
    """A span as OpenTelemetry Go's stdouttrace writes it."""
    context, parent = as_mapping(s.get("SpanContext")), as_mapping(s.get("Parent"))
    parent_id = str(parent.get("SpanID") or "").strip("0") and str(parent["SpanID"])
    status = as_mapping(s.get("Status"))
    end = s.get("EndTime")
    ended = bool(end) and not str(end).startswith(_GO_ZERO[:10])
    links = [str(as_mapping(x.get("SpanContext")).get("SpanID") or "") for x in s.get("Links") or []
             if isinstance(x, dict)]  # fmt: skip
    return Span(
        str(context.get("TraceID", "")),
        str(context.get("SpanID", "")),
        parent_id or None,
        str(s.get("Name", "")),
        iso_ns(s.get("StartTime"), f"{where}.StartTime"),
        iso_ns(end, f"{where}.EndTime") if ended else 0,
        _go_attributes(s.get("Attributes")),
        str(_go_attributes(s.get("Resource")).get("service.name") or ""),
        str(status.get("Description") or "error") if status.get("Code") == "Error" else None,
        ended=ended,
        links=[k for k in links if k.strip("0")],
        where=where,
    )


def _datadog_span(s: dict[str, Any], where: str) -> Span:
    """A span of a Datadog trace list: ids as integers, `start` and `duration` in
    nanoseconds, string tags in `meta` and numeric ones in `metrics`."""
    start, duration = integer(s.get("start")), integer(s.get("duration"))
    if start is None or duration is None:
        raise ImportError_(f"{where}: start and duration must be integers (nanoseconds)")
    meta, metrics = as_mapping(s.get("meta")), as_mapping(s.get("metrics"))
    parent = s.get("parent_id")
    return Span(
        str(s.get("trace_id", "")),
        str(s.get("span_id", "")),
        str(parent) if parent not in (None, 0, "0", "") else None,
        str(s.get("name", "")),
        start,
        start + duration,
        {**meta, **metrics, "resource.name": s.get("resource")},
        str(s.get("service") or ""),
        str(meta.get("error.message") or "error") if s.get("error") else None,
        where=where,
    )


# AgentOps' span kinds (agentops.span.kind) as the GenAI operations they are; its workflows and
# tasks (workflow, workflow.step) are containers
AGENTOPS_KINDS = {"agent": "invoke_agent", "llm": "chat", "tool": "execute_tool"}


def _agentops_spans(doc: dict[str, Any], where: str) -> list[Span]:
    """AgentOps' trace JSON: the trace's summary and its spans, attributes nested, its span
    kinds read as GenAI operations (an agent named by its role)."""
    trace_id = str(as_mapping(doc.get("trace")).get("trace_id") or doc.get("trace_id") or "")
    spans = []
    timed = all(isinstance(s, dict) and s.get("start_time") for s in doc["spans"])
    for i, s in enumerate(doc["spans"]):
        at = f"{where}spans[{i}]"
        if not isinstance(s, dict):
            raise ImportError_(f"{at}: expected a span object")
        attrs = {**flatten(s.get("attributes")), **flatten(s.get("span_attributes"))}
        operation = AGENTOPS_KINDS.get(str(attrs.get("agentops.span.kind")))
        if operation and "gen_ai.operation.name" not in attrs:
            attrs["gen_ai.operation.name"] = operation
            if operation == "invoke_agent" and attrs.get("agent.role"):
                attrs.setdefault("gen_ai.agent.name", attrs["agent.role"])
        end = s.get("end_time") if timed else None
        failed = str(s.get("status_code") or "").upper() == "ERROR"
        spans.append(
            Span(
                str(s.get("trace_id") or trace_id),
                str(s.get("span_id", "")),
                str(s.get("parent_span_id") or "") or None,
                str(s.get("span_name", "")),
                iso_ns(s.get("start_time"), f"{at}.start_time") if timed else 0,
                iso_ns(end, f"{at}.end_time") if end else 0,
                attrs,
                str(s.get("service_name") or ""),
                str(s.get("status_message") or "error") if failed else None,
                ended=bool(end) or not timed,
                where=at,
            )
        )
    return spans if timed else lay_out(spans)  # a span without a start: read in steps mode


# OpenLLMetry's span kinds (traceloop.span.kind, or ioa_observe.span.kind as AGNTCY's
# observe SDK writes it) and request types (llm.request.type) as GenAI operations; its workflows
# and tasks are containers
OPENLLMETRY_KINDS = {"agent": "invoke_agent", "tool": "execute_tool"}
OPENLLMETRY_REQUESTS = {"chat": "chat", "completion": "text_completion", "embedding": "embeddings"}


def openllmetry(attrs: dict[str, Any]) -> None:
    """Mark ATTRS of an OpenLLMetry span with the GenAI operation its kind or request type
    is, and the agent or tool it names (traceloop.entity.name), unless it says one itself."""
    if "gen_ai.operation.name" in attrs:
        return
    kind = attrs.get("traceloop.span.kind") or attrs.get("ioa_observe.span.kind")
    operation = OPENLLMETRY_KINDS.get(str(kind)) or OPENLLMETRY_REQUESTS.get(
        str(attrs.get("llm.request.type"))
    )
    if operation is None:
        return
    attrs["gen_ai.operation.name"] = operation
    name = attrs.get("traceloop.entity.name") or attrs.get("ioa_observe.entity.name")
    if name and operation == "invoke_agent":
        attrs.setdefault("gen_ai.agent.name", name)
    elif name and operation == "execute_tool":
        attrs.setdefault("gen_ai.tool.name", name)


def _clickhouse_span(s: dict[str, Any], where: str) -> Span:
    """A row of the OpenTelemetry Collector's ClickHouse exporter (otel_traces) as a query
    gives it: `Timestamp` (UTC) and `Duration` in nanoseconds, attributes in `SpanAttributes`;
    OpenLLMetry's span kinds read as GenAI operations."""
    duration = integer(s.get("Duration"))
    if duration is None:
        raise ImportError_(f"{where}: Duration must be an integer (nanoseconds)")
    start = iso_ns(s.get("Timestamp"), f"{where}.Timestamp")
    attrs = dict(as_mapping(s.get("SpanAttributes")))
    openllmetry(attrs)
    service = s.get("ServiceName") or as_mapping(s.get("ResourceAttributes")).get("service.name")
    links = s.get("Links.SpanId")
    failed = str(s.get("StatusCode") or "").lower().endswith("error")
    return Span(
        str(s.get("TraceId", "")),
        str(s.get("SpanId", "")),
        str(s.get("ParentSpanId") or "") or None,
        str(s.get("SpanName", "")),
        start,
        start + duration,
        attrs,
        str(service or ""),
        str(s.get("StatusMessage") or "error") if failed else None,
        links=[str(k) for k in links if k] if isinstance(links, list) else [],
        where=where,
    )


SHAPES = {
    "python": ("OpenTelemetry Python's to_json() or Phoenix's span JSON",
               ("name", "context", "start_time")),
    "go": ("OpenTelemetry Go's stdouttrace", ("Name", "SpanContext", "StartTime")),
    "datadog": ("a Datadog trace list", ("span_id", "start", "duration")),
    "agentops": ("AgentOps' trace JSON", ("trace", "spans")),
    "clickhouse": ("ClickHouse otel_traces rows", ("TraceId", "SpanId", "Timestamp", "Duration")),
}  # fmt: skip


def shape(item: Any) -> str | None:
    """The shape of this module that ITEM (an object) is in, if any."""
    if not isinstance(item, dict):
        return None
    if "SpanContext" in item:
        return "go"
    if isinstance(item.get("context"), dict) and "start_time" in item:
        return "python"
    if "context.span_id" in item and "start_time" in item:
        return "phoenix-frame"
    if "span_id" in item and "start" in item and "duration" in item:
        return "datadog"
    if "SpanId" in item and "Timestamp" in item and "Duration" in item:
        return "clickhouse"
    if is_atif(item):
        return "atif"
    if isinstance(item.get("trajectory"), list) and "info" in item and "history" in item:
        return "swe-agent"
    if str(item.get("trajectory_format", "")).startswith("mini-swe-agent") and "messages" in item:
        return "mini-swe-agent"
    if isinstance(item.get("spans"), list) and item["spans"]:  # with its trace's summary or not
        first = item["spans"][0]
        if isinstance(first, dict) and "span_name" in first:
            return "agentops"
    return None


def read(kind: str, item: dict[str, Any], where: str) -> list[Span]:
    """The spans of ITEM, of the shape KIND."""
    if kind == "agentops":
        return _agentops_spans(item, f"{where}." if where else "")
    if kind == "atif":
        return atif_spans(item, f"{where}." if where else "")
    if kind == "swe-agent":
        return swe_agent_spans(item, f"{where}." if where else "")
    if kind == "mini-swe-agent":
        return mini_swe_spans(item, f"{where}." if where else "")
    reader = {"python": _python_span, "phoenix-frame": _frame_span, "go": _go_span,
              "datadog": _datadog_span, "clickhouse": _clickhouse_span}[kind]  # fmt: skip
    return [reader(item, where or "the span")]


# the keys that mark each shape a refused document may look like, and what it then needs
LOOKS = (
    ("an OTLP/JSON export", ("resourceSpans", "scopeSpans", "spans", "traceId"),
     ("resourceSpans",)),
    ("a Jaeger trace", ("traceID", "spanID", "operationName", "processes"),
     ("traceID", "spanID", "operationName", "startTime", "duration")),
    ("a Langfuse trace", ("observations", "parentObservationId", "startTime"),
     ("observations",)),
    ("OpenTelemetry Python's to_json()", ("context", "start_time", "parent_id", "kind"),
     ("name", "context", "start_time", "end_time")),
    ("OpenTelemetry Go's stdouttrace", ("SpanContext", "StartTime", "Parent", "Name"),
     ("Name", "SpanContext", "StartTime", "EndTime")),
    ("a Datadog trace list", ("span_id", "trace_id", "start", "duration", "meta"),
     ("trace_id", "span_id", "start", "duration")),
    ("AgentOps' trace JSON", ("trace", "spans", "span_name", "span_id"), ("trace", "spans")),
    ("an ATIF trajectory", ("schema_version", "session_id", "agent", "steps"),
     ("schema_version", "steps")),
    ("a ClickHouse otel_traces row", ("TraceId", "SpanId", "Timestamp", "Duration", "SpanName"),
     ("TraceId", "SpanId", "Timestamp", "Duration")),
)  # fmt: skip


def refusal(item: Any, where: str) -> str:
    """Why ITEM (a decoded document, or one of its items) is no export read here: the shape
    whose marks it carries most, and what that shape needs that it lacks."""
    keys = set(item) if isinstance(item, dict) else set()
    if isinstance(item, list):
        first = next((x for x in item if isinstance(x, dict | list)), None)
        if isinstance(first, list):
            first = next((x for x in first if isinstance(x, dict)), None)
        keys = set(first) if isinstance(first, dict) else set()
    scored = sorted(((len(keys & set(m)), name, need) for name, m, need in LOOKS), reverse=True)
    hits, name, need = scored[0]
    at = where or "the export"
    if not hits:
        found = ", ".join(sorted(map(str, keys))[:8]) or "no keys"
        return (
            f"{at}: not a span export orchtrace reads (it has {found}); it reads OTLP JSON "
            "(resourceSpans) or protobuf, Jaeger (data, traceID, spanID), Tempo (batches), "
            "Langfuse (observations), OpenTelemetry JS (spanContext), Python and Phoenix "
            "(context), Go (SpanContext), Datadog (span_id, start), AgentOps (trace, spans), "
            "Zipkin v2 (traceId, id, timestamp), ATIF trajectories (schema_version, steps), "
            "SWE-agent trajectories (trajectory, history, info), mini-SWE-agent trajectories "
            "(trajectory_format, messages) and ClickHouse rows (TraceId, Timestamp, Duration)"
        )
    missing = [k for k in need if k not in keys]
    lacking = f"it lacks {', '.join(missing)}" if missing else "its values are not of that shape"
    return f"{at}: looks like {name}, but {lacking}"
