"""What the import tests share: the exports folder, the command, an import checked as `validate`
would, a trace's measures and events, and hand-made OTLP spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orchtrace.measures.examine import examine
from orchtrace.readers.importcheck import import_traces

EXPORTS = Path(__file__).resolve().parent / "fixtures" / "exports"


def imported(data: bytes, convention: str = "auto") -> tuple[list[dict[str, Any]], str]:
    traces, note = import_traces(data, convention)
    for t in traces:
        assert not examine(json.dumps(t), "imported").failed
    return traces, note


def measured(trace: dict[str, Any]) -> dict[str, Any]:
    m = examine(json.dumps(trace), "t", measure=True).measures
    assert m is not None
    return m


def events_of(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Each event's type, agent, times and tokens, then its tool and call id if it has them."""
    return [
        (e["type"], e["agent"], e["t"], e["t_end"], e.get("tokens"))
        + ((e["tool"], e["call_id"]) if "tool" in e else ())
        for e in trace["events"]
    ]


def span(sid: str, parent: str | None, start: float, end: float, **attrs: Any) -> dict[str, Any]:
    def value(v: Any) -> dict[str, Any]:
        return {"intValue": str(v)} if isinstance(v, int) else {"stringValue": str(v)}

    out = {
        "traceId": attrs.pop("trace", "t1"),
        "spanId": sid,
        "name": attrs.pop("name", sid),
        "startTimeUnixNano": str(int(start * 1e9)),
        "endTimeUnixNano": str(int(end * 1e9)),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if parent:
        out["parentSpanId"] = parent
    return out


def export(*spans: dict[str, Any], key: str = "resourceSpans") -> bytes:
    batch = {"resource": {"attributes": []}, "scopeSpans": [{"spans": list(spans)}]}
    if key == "trace":
        return json.dumps({"trace": {"resourceSpans": [batch]}}).encode()
    return json.dumps({key: [batch]}).encode()


AGENT = {"gen_ai.operation.name": "invoke_agent"}


CHAT = {"gen_ai.operation.name": "chat"}
