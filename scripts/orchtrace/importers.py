"""Imports spans into orchestration traces: OTLP JSON (and JSON Lines) following the
OpenTelemetry GenAI semantic conventions, and OpenInference span kinds.

Each span becomes events of the agent it belongs to (its own agent for an agent span, else the
nearest agent ancestor): an agent span is a spawn by the parent agent and a return at its end;
a tool span is a tool call and its result; a model or chain span is a step; a guardrail span a
safety event. Span ids may be hex or base64; integers may be strings (protobuf's JSON mapping).
"""

from __future__ import annotations

import base64
import binascii
import itertools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

AGENT, TOOL, STEP, SAFETY, CREATE = "agent", "tool", "step", "safety", "create"
GENAI_OPS = {
    "invoke_agent": AGENT,
    "create_agent": CREATE,
    "execute_tool": TOOL,
    "chat": STEP,
    "text_completion": STEP,
    "generate_content": STEP,
    "embeddings": STEP,
}
OPENINFERENCE = {
    "AGENT": AGENT,
    "TOOL": TOOL,
    "LLM": STEP,
    "CHAIN": STEP,
    "RETRIEVER": STEP,
    "EMBEDDING": STEP,
    "RERANKER": STEP,
    "GUARDRAIL": SAFETY,
    "EVALUATOR": STEP,
}
INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
OUTPUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
)


class ImportError_(ValueError):
    """The input is not a span export this importer reads."""


@dataclass
class Span:
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int
    attrs: dict[str, Any]
    error: str | None = None
    children: list[Span] = field(default_factory=list)


def _hex_id(raw: Any) -> str | None:
    if not raw:
        return None
    text = str(raw)
    if len(text) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    try:
        return base64.b64decode(text, validate=True).hex()
    except (binascii.Error, ValueError):
        return text


def _value(v: Any) -> Any:
    if not isinstance(v, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        return _integer(v["intValue"])
    if "arrayValue" in v and isinstance(v["arrayValue"], dict):
        return [_value(x) for x in _list(v["arrayValue"].get("values", []))]
    return None


def _integer(raw: Any) -> int | None:
    """An OTLP integer (protobuf's JSON mapping writes 64-bit ones as strings), else None."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit() and len(raw) < 40:
        return int(raw)
    return None


def _list(raw: Any) -> list[Any]:
    return raw if isinstance(raw, list) else []


def _objects(raw: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """The objects of the list RAW with their paths; anything else is an ImportError_."""
    if not isinstance(raw, list):
        raise ImportError_(f"{where}: expected a list")
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ImportError_(f"{where}[{i}]: expected an object")
    return [(f"{where}[{i}]", item) for i, item in enumerate(raw)]


def _span(s: dict[str, Any], where: str) -> Span:
    start = _integer(s.get("startTimeUnixNano", 0))
    end = _integer(s.get("endTimeUnixNano", s.get("startTimeUnixNano", 0)))
    if start is None or end is None:
        raise ImportError_(f"{where}: start and end times must be integers (nanoseconds)")
    status: dict[str, Any] = s["status"] if isinstance(s.get("status"), dict) else {}
    failed = status.get("code") in (2, "STATUS_CODE_ERROR")
    attributes = {
        a["key"]: _value(a.get("value"))
        for _, a in _objects(s.get("attributes", []), f"{where}.attributes")
        if isinstance(a.get("key"), str)
    }
    return Span(
        _hex_id(s.get("spanId")) or "",
        _hex_id(s.get("parentSpanId")),
        str(s.get("name", "")),
        start,
        end,
        attributes,
        str(status.get("message") or "error") if failed else None,
    )


def read_otlp(data: bytes) -> list[Span]:
    """Spans from OTLP JSON: one ExportTraceServiceRequest, or one per line (JSON Lines).
    Anything malformed is an ImportError_ that says where."""
    docs = []
    try:
        docs = [orjson.loads(data)]
    except orjson.JSONDecodeError:
        try:
            docs = [orjson.loads(line) for line in data.splitlines() if line.strip()]
        except orjson.JSONDecodeError as exc:
            raise ImportError_(f"not OTLP JSON or JSON Lines: {exc}") from exc
    spans = []
    for n, doc in enumerate(docs):
        where = f"line {n + 1}: " if len(docs) > 1 else ""
        if not isinstance(doc, dict) or "resourceSpans" not in doc:
            raise ImportError_(f"{where}expected OTLP JSON with a resourceSpans list")
        for at, rs in _objects(doc["resourceSpans"], f"{where}resourceSpans"):
            scopes = rs.get("scopeSpans", rs.get("instrumentationLibrarySpans", []))
            for at_scope, ss in _objects(scopes, f"{at}.scopeSpans"):
                for at_span, s in _objects(ss.get("spans", []), f"{at_scope}.spans"):
                    spans.append(_span(s, at_span))
    if not spans:
        raise ImportError_("the export holds no spans")
    return spans


def _kind(span: Span, convention: str) -> str:
    if convention == "openinference":
        return OPENINFERENCE.get(str(span.attrs.get("openinference.span.kind", "")).upper(), STEP)
    return GENAI_OPS.get(str(span.attrs.get("gen_ai.operation.name", "")), STEP)


def _agent_name(span: Span, convention: str) -> str:
    keys = (
        ("agent.name", "graph.node.id")
        if convention == "openinference"
        else ("gen_ai.agent.name", "gen_ai.agent.id")
    )
    for key in keys:
        if span.attrs.get(key):
            return str(span.attrs[key])
    return span.name or span.span_id


def _tokens(span: Span) -> int | None:
    """Input plus output tokens, reading the current attribute names before the older ones."""
    counts = []
    for names in (INPUT_TOKENS, OUTPUT_TOKENS):
        value = next(
            (span.attrs[k] for k in names if isinstance(span.attrs.get(k), int | float)), None
        )
        if value is not None:
            counts.append(int(value))
    return sum(counts) if counts else None


def to_trace(spans: list[Span], convention: str, trace_id: str = "") -> dict[str, Any]:
    """Build an orchestration trace from spans (convention: 'otlp' or 'openinference')."""
    by_id = {s.span_id: s for s in spans}
    roots: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start, s.span_id)):
        parent = by_id.get(s.parent_id or "")
        (parent.children if parent else roots).append(s)
    if not roots:
        raise ImportError_("every span has a parent in the export: their parent links loop")
    t0 = min(s.start for s in spans)
    sec = 1e-9
    events: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    agents: dict[str, dict[str, Any]] = {}
    lanes: dict[str, list[str]] = defaultdict(list)

    def emit(kind: str, agent: str, t_ns: int, end_ns: int, span: Span, **extra: Any) -> str:
        eid = f"ev{len(events) + 1}"
        event = {
            "id": eid,
            "type": kind,
            "agent": agent,
            "t": round((t_ns - t0) * sec, 9),
            "t_end": round((max(end_ns, t_ns) - t0) * sec, 9),
            "span_id": span.span_id,
            **{k: v for k, v in extra.items() if v is not None},
        }
        events.append(event)
        lanes[agent].append(eid)
        return eid

    # depth first, without recursion (spans may nest thousands deep): a task is a span to
    # visit, with the agent it acts for, or the closing step of a span whose children are done
    tasks: list[tuple[Span, str | None] | Callable[[], None]] = [(r, None) for r in roots[::-1]]

    def then_visit(children: list[Span], agent: str, closing: Callable[[], None] | None) -> None:
        if closing is not None:
            tasks.append(closing)
        tasks.extend((child, agent) for child in reversed(children))

    while tasks:
        task = tasks.pop()
        if callable(task):
            task()
            continue
        span, agent = task
        kind = _kind(span, convention)
        if kind == AGENT:
            name = _agent_name(span, convention)
            agents.setdefault(name, {"id": name, "role": "agent"})
            if agent is None or agent == name:
                then_visit(span.children, name, None)
                continue
            agents[name].setdefault("parent", agent)
            spawn = emit("spawn", agent, span.start, span.start, span, target=name)

            def returns(
                span: Span = span,
                name: str = name,
                agent: str = agent,
                spawn: str = spawn,
                first: int = len(events),
            ) -> None:
                ret = emit("return", name, span.end, span.end, span, target=agent, error=span.error)
                target = events[first]["id"] if first < len(events) - 1 else ret
                edges.append({"source": spawn, "target": target, "type": "spawn"})

            then_visit(span.children, name, returns)
            continue
        owner = agent or _agent_name(span, convention)
        agents.setdefault(owner, {"id": owner, "role": "agent"})
        if kind == TOOL:
            call_id = str(
                span.attrs.get("gen_ai.tool.call.id")
                or span.attrs.get("tool_call.id")
                or span.span_id
            )
            tool = str(
                span.attrs.get("gen_ai.tool.name") or span.attrs.get("tool.name") or span.name
            )
            call = emit(
                "tool_call", owner, span.start, span.start, span, tool=tool, call_id=call_id
            )

            def answers(
                span: Span = span,
                owner: str = owner,
                tool: str = tool,
                call_id: str = call_id,
                call: str = call,
            ) -> None:
                result = emit(
                    "tool_result",
                    owner,
                    span.end,
                    span.end,
                    span,
                    tool=tool,
                    call_id=call_id,
                    error=span.error,
                )
                edges.append({"source": call, "target": result, "type": "tool_dependency"})

            then_visit(span.children, owner, answers)
            continue
        if kind == CREATE:
            name = _agent_name(span, convention)
            emit("spawn", owner, span.start, span.end, span, target=name, decision="spawn")
        elif kind == SAFETY:
            emit("safety_event", owner, span.start, span.end, span, error=span.error)
        elif not span.children:
            emit("step", owner, span.start, span.end, span, tokens=_tokens(span), error=span.error)
        then_visit(span.children, owner, None)

    events.sort(key=lambda e: (e["t"], int(e["id"][2:])))
    times = {e["id"]: e["t"] for e in events}
    for lane in lanes.values():
        lane.sort(key=lambda i: (times[i], int(i[2:])))
        for a, b in itertools.pairwise(lane):
            if times[b] >= times[a]:
                edges.append({"source": a, "target": b, "type": "temporal"})
    counted = {"tool_calls": sum(e["type"] == "tool_call" for e in events), "messages": 0}
    tokens = [e["tokens"] for e in events if "tokens" in e]
    if tokens:
        counted["tokens"] = sum(tokens)
    wall = (max(s.end for s in spans) - t0) * sec
    return {
        "schema_version": "1.0",
        "trace_id": trace_id or f"imported-{roots[0].span_id}",
        "agents": list(agents.values()),
        "events": events,
        "edges": edges,
        "costs": {**counted, "wall_clock_s": round(wall, 9)},
    }
