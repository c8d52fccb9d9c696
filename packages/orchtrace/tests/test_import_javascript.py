"""orchtrace import on JavaScript exports (fixtures/exports, see its PROVENANCE): the Vercel AI
SDK's spans through OpenTelemetry JS, their tool calls, parents and errors."""

from __future__ import annotations

import json
from typing import Any

from importhelp import CHAT, EXPORTS, events_of, export, imported, measured, span


def test_vercel_ai_sdk_spans_from_opentelemetry_js() -> None:
    # OpenTelemetry JS spans as JSON (spanContext, [s, ns] times), captured from the AI SDK 6;
    # each of the ten spans has a traceId of its own and no parent. Each is one step by an agent
    # named after the span (no service), over its whole time:
    #   doGenerate 1770131992.242 -> 994.021415667 = 1.779415667 s, gen_ai.usage 14 + 20 = 34;
    #   generateText 992.241 -> 994.022541 = 1.781541 s, ai.usage.prompt/completionTokens 34;
    #   doGenerate 994.023 -> 997.057285833 = 3.034285833 s, 50 + 9 = 59;
    #   generateText 994.023 -> 997.057733667 = 3.034733667 s, 59;
    #   generateObject.doGenerate 997.066 -> 2000.585812667 = 3.519812667 s, 63 + 156 = 219;
    #   generateObject 997.065 -> 2000.588601792 = 3.523601792 s, 219;
    #   streamText.doStream 2000.598 -> 2005.984307375 = 5.386307375 s, 15 + 112 = 127;
    #   streamText 2000.594 -> 2005.986741708 = 5.392741708 s, ai.usage.input/outputTokens 127;
    #   embed.doEmbed 2006.016 -> 2006.269719584 = 0.253719584 s, ai.usage.tokens 10;
    #   embed 2006.015 -> 2006.269932417 = 0.254932417 s, 10.
    traces, note = imported((EXPORTS / "vercel-ai-sdk-spans.json").read_bytes(), "vercel")
    assert note == ""
    got = [(t["trace_id"], *events_of(t)) for t in traces]
    assert got == [
        (
            "b3e700af9eab81e19f72f964d62a35af",
            ("step", "ai.generateText.doGenerate", 0.0, 1.779415667, 34),
        ),
        ("700d5f98fe2420adcf6ab0822f7a323c", ("step", "ai.generateText", 0.0, 1.781541, 34)),
        (
            "edff2fc5854be6170e8cccccec0c82cf",
            ("step", "ai.generateText.doGenerate", 0.0, 3.034285833, 59),
        ),
        ("673a889f59126f8b4c90dce5a1f99368", ("step", "ai.generateText", 0.0, 3.034733667, 59)),
        (
            "8f60802815d6e97da2dbc4708a8e5c7b",
            ("step", "ai.generateObject.doGenerate", 0.0, 3.519812667, 219),
        ),
        ("f99cc53c9bb8fe40462f7a48999e7088", ("step", "ai.generateObject", 0.0, 3.523601792, 219)),
        (
            "478d4dcc697ecfabc5e7a3d6e4216291",
            ("step", "ai.streamText.doStream", 0.0, 5.386307375, 127),
        ),
        ("8185b815e471184c6525a601a042be42", ("step", "ai.streamText", 0.0, 5.392741708, 127)),
        ("045d21a7f69972edf509fe0ff911f3f5", ("step", "ai.embed.doEmbed", 0.0, 0.253719584, 10)),
        ("91621bbaaf1920e94ae594e91b3a99fd", ("step", "ai.embed", 0.0, 0.254932417, 10)),
    ]
    assert [t["costs"]["tokens"] for t in traces] == [34, 34, 59, 59, 219, 219, 127, 127, 10, 10]
    m = measured(traces[6])  # one step of 5.386307375 s
    assert (m["work"], m["critical_path"], m["makespan"], m["agents"]) == (
        5.3863,
        5.3863,
        5.3863,
        1,
    )


def test_vercel_ai_sdk_spans() -> None:
    # ai.generateText (0-10 s, 300 tokens in all) holds two model calls (doGenerate, 0-3 s with
    # 100 tokens and 6-10 s with 200) and a tool call (3-6 s): the outer total is not counted
    # again, the tool call is a tool call, its 3 s waited on (a step); generateText has no
    # time of its own.
    data = export(
        span(
            "g",
            None,
            0,
            10,
            name="ai.generateText",
            **{
                "ai.operationId": "ai.generateText",
                "ai.usage.promptTokens": 250,
                "ai.usage.completionTokens": 50,
            },
        ),
        span(
            "d1",
            "g",
            0,
            3,
            name="ai.generateText.doGenerate",
            **{
                "ai.operationId": "ai.generateText.doGenerate",
                "ai.usage.promptTokens": 90,
                "ai.usage.completionTokens": 10,
            },
        ),
        span(
            "t",
            "g",
            3,
            6,
            name="ai.toolCall",
            **{
                "ai.operationId": "ai.toolCall",
                "ai.toolCall.name": "weather",
                "ai.toolCall.id": "call_1",
            },
        ),
        span(
            "d2",
            "g",
            6,
            10,
            name="ai.generateText.doGenerate",
            **{
                "ai.operationId": "ai.generateText.doGenerate",
                "ai.usage.promptTokens": 150,
                "ai.usage.completionTokens": 50,
            },
        ),
    )
    (trace,), note = imported(data, "vercel")
    kinds = [(e["type"], e.get("tool"), e.get("call_id"), e.get("tokens")) for e in trace["events"]]
    assert kinds == [
        ("step", None, None, 100),
        ("tool_call", "weather", "call_1", None),
        ("step", None, None, None),
        ("tool_result", "weather", "call_1", None),
        ("step", None, None, 200),
    ]
    assert trace["costs"]["tokens"] == 300 and note == ""


def test_javascript_spans_keep_their_parents_and_errors() -> None:
    # OpenTelemetry JS 2 names the parent in parentSpanContext, 1.x in parentSpanId; status
    # code 2 is an error. An invoke_agent span without gen_ai.agent.name is named after itself
    # (not its service); a token count written as a string counts.
    def js(sid: str, parent: dict[str, Any], start: int, end: int, **attrs: Any) -> dict[str, Any]:
        return {
            "name": attrs.pop("name", sid),
            "spanContext": {"traceId": "t", "spanId": sid},
            **parent,
            "attributes": attrs,
            "status": {"code": 2, "message": "timed out"} if sid == "c" else {"code": 0},
            "startTime": [start, 0],
            "endTime": [end, 500_000_000],
            "resource": {"attributes": {"service.name": "app"}},
        }

    data = json.dumps(
        [
            js("a", {}, 10, 13, name="invoke_agent", **{"gen_ai.operation.name": "invoke_agent"}),
            js(
                "b",
                {"parentSpanContext": {"spanId": "a"}},
                10,
                11,
                **CHAT,
                **{"gen_ai.usage.input_tokens": "7"},
            ),
            js("c", {"parentSpanId": "a"}, 12, 12, **CHAT),
        ]
    ).encode()
    (trace,), _ = imported(data)
    # the agent at the top acts for itself: chat 0-1.5 s (7 tokens), chat 2-2.5 s in error,
    # and the agent's own time between and after them, 1.5-2 s and 2.5-3.5 s
    assert [
        (e["agent"], e["t"], e["t_end"], e.get("tokens"), e.get("error")) for e in trace["events"]
    ] == [
        ("invoke_agent", 0.0, 1.5, 7, None),
        ("invoke_agent", 1.5, 2.0, None, None),
        ("invoke_agent", 2.0, 2.5, None, "timed out"),
        ("invoke_agent", 2.5, 3.5, None, None),
    ]
