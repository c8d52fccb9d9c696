"""The conventions a span is read by: what kind of span it is (agent, tool, model, ...) by the
OpenTelemetry GenAI semantic conventions, OpenInference span kinds, the Vercel AI SDK's `ai.*`
spans or Langfuse's observation types; the agent it names; the tokens and money it reports; and
how spans of other frameworks' habits are read as these: the LangGraph node a span runs in, a
delegation to another service, and an agent's model and tool spans written beside its agent
span rather than below it (Microsoft Agent Framework). importers.py turns them into events.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from .spans import ImportError_, Span, integer, json_mapping

AGENT, TOOL, MODEL, CONTAINER, SAFETY, CREATE = (
    "agent",
    "tool",
    "model",
    "container",
    "safety",
    "create",
)
CONVENTIONS = {
    "genai": "OpenTelemetry GenAI (gen_ai.operation.name)",
    "openinference": "OpenInference (openinference.span.kind)",
    "vercel": "Vercel AI SDK (ai.* spans)",
    "langfuse": "Langfuse (langfuse.observation.type)",
}
GENAI_OPS = {
    "invoke_agent": AGENT,
    "create_agent": CREATE,
    "execute_tool": TOOL,
    "chat": MODEL,
    "text_completion": MODEL,
    "generate_content": MODEL,
    "embeddings": MODEL,
}
OPENINFERENCE = {
    "AGENT": AGENT,
    "TOOL": TOOL,
    "LLM": MODEL,
    "EMBEDDING": MODEL,
    "CHAIN": CONTAINER,
    "RETRIEVER": CONTAINER,
    "RERANKER": CONTAINER,
    "EVALUATOR": CONTAINER,
    "GUARDRAIL": SAFETY,
}
LANGFUSE = {
    "agent": AGENT,
    "tool": TOOL,
    "generation": MODEL,
    "embedding": MODEL,
    "guardrail": SAFETY,
}
AGENT_NAMES = {
    "genai": ("gen_ai.agent.name", "gen_ai.agent.id"),
    "openinference": ("agent.name", "graph.node.id"),
    "vercel": (),
    "langfuse": ("gen_ai.agent.name", "agent.name"),
}
INPUT_TOKENS = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
    "ai.usage.inputTokens",
    "ai.usage.promptTokens",
    "ai.usage.tokens",  # an embedding's
    "response.usage.prompt_tokens",  # Datadog's OpenAI integration (metrics)
)
OUTPUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "ai.usage.outputTokens",
    "ai.usage.completionTokens",
    "response.usage.completion_tokens",
)
OWN = {"own_time": True}  # the mark of a step over a span's own time (not a step of its own)
NO_TURN = {"turn": False}  # a step of a span that is not a model call (not an agent turn)
TOOL_NAMES = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
CALL_IDS = ("gen_ai.tool.call.id", "tool_call.id", "ai.toolCall.id")


def _vercel_kind(operation: str) -> str:
    if operation == "ai.toolCall":
        return TOOL
    if operation.endswith((".doGenerate", ".doStream", ".doEmbed")):
        return MODEL
    return CONTAINER


def carried(span: Span) -> str | None:
    """The convention whose marker SPAN carries, if any."""
    if "gen_ai.operation.name" in span.attrs:
        return "genai"
    if "openinference.span.kind" in span.attrs:
        return "openinference"
    operation = span.attrs.get("ai.operationId") or span.name
    if isinstance(operation, str) and operation.startswith("ai."):
        return "vercel"
    return "langfuse" if "langfuse.observation.type" in span.attrs else None


def kind_of(span: Span, allowed: set[str]) -> tuple[str, str | None]:
    """What SPAN is (AGENT, TOOL, ...) and the convention that says so, among ALLOWED."""
    convention = carried(span)
    if convention not in allowed:
        return CONTAINER, None
    if convention == "genai":
        return GENAI_OPS.get(str(span.attrs["gen_ai.operation.name"]), CONTAINER), convention
    if convention == "openinference":
        kind = str(span.attrs["openinference.span.kind"]).upper()
        return OPENINFERENCE.get(kind, CONTAINER), convention
    if convention == "langfuse":
        kind = str(span.attrs["langfuse.observation.type"]).lower()
        return LANGFUSE.get(kind, CONTAINER), convention
    return _vercel_kind(str(span.attrs.get("ai.operationId") or span.name)), convention


def first_attr(span: Span, keys: tuple[str, ...]) -> Any:
    return next((span.attrs[k] for k in keys if span.attrs.get(k) not in (None, "")), None)


def as_text(value: Any) -> str:
    """An attribute as text: a list's items joined by commas (not Python's list syntax)."""
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def agent_name(span: Span, convention: str | None, own: bool = False) -> str:
    """The agent SPAN names, else (OWN: SPAN is that agent's) its name or else its service."""
    name = first_attr(span, AGENT_NAMES.get(convention or "", ())) if convention else None
    fallback = (span.name, span.service) if own else (span.service, span.name)
    return as_text(name or next((f for f in fallback if f), span.span_id))


def _count(raw: Any) -> int | None:
    """A token count: a number, or an integer written as a string."""
    return int(raw) if isinstance(raw, float) else integer(raw)


def _usage_details(span: Span) -> list[int]:
    """The total of Langfuse's usage details (a mapping or its JSON), else input and output:
    Langfuse's total counts every kind its details list (reasoning tokens, cached reads)."""
    usage = json_mapping(span.attrs.get("langfuse.observation.usage_details"))
    total = _count(usage.get("total"))
    if total is not None:
        return [total]
    return [c for c in (_count(usage.get(k)) for k in ("input", "output")) if c is not None]


def _tokens(span: Span) -> int | None:
    """Input plus output tokens, reading the current attribute names before the older ones,
    then a total, then Langfuse's usage details."""
    counts = [_count(first_attr(span, names)) for names in (INPUT_TOKENS, OUTPUT_TOKENS)]
    found = [c for c in counts if c is not None]
    if not found:
        total = _count(span.attrs.get("llm.token_count.total"))
        found = [total] if total is not None else _usage_details(span)
    return sum(found) if found else None


def _dollars(raw: Any) -> float | None:
    """A cost: a non-negative number, or one written as a string."""
    if isinstance(raw, str):
        try:
            raw = float(raw)
        except ValueError:
            return None
    ok = isinstance(raw, int | float) and not isinstance(raw, bool) and raw >= 0
    return float(raw) if ok and raw == raw else None  # raw == raw: not NaN


def _cost(span: Span) -> float | None:
    """The span's cost in US dollars: OpenInference's total (else prompt plus completion),
    any-agent's input plus output cost, then Langfuse's cost details (total, else input plus
    output)."""
    total = _dollars(span.attrs.get("llm.cost.total"))
    if total is not None:
        return total
    parts = [_dollars(span.attrs.get(k)) for k in ("llm.cost.prompt", "llm.cost.completion")]
    if not any(p is not None for p in parts):  # any-agent (gen_ai.usage.*_cost)
        parts = [_dollars(span.attrs.get(f"gen_ai.usage.{k}_cost")) for k in ("input", "output")]
    details = json_mapping(span.attrs.get("langfuse.observation.cost_details"))
    if not any(p is not None for p in parts):
        total = _dollars(details.get("total"))
        if total is not None:
            return total
        parts = [_dollars(details.get(k)) for k in ("input", "output")]
    found = [p for p in parts if p is not None]
    return sum(found) if found else None


MEASURES: dict[str, Callable[[Span], Any]] = {"tokens": _tokens, "cost_usd": _cost}


def _adopt(siblings: list[Span], allowed: set[str]) -> None:
    """Spans that a sibling agent span encloses in time, of its service, as its children:
    Microsoft Agent Framework writes an agent's chat and execute_tool spans beside its
    invoke_agent span rather than below it, and they are the agent's (its tokens are theirs)."""
    holders = [s for s in siblings if kind_of(s, allowed)[0] == AGENT]
    if not holders:
        return
    kept = []
    for span in siblings:
        around = [
            h for h in holders
            if h is not span and h.service == span.service and h.start <= span.start
            and span.end <= h.end and kind_of(span, allowed)[0] != AGENT
        ]  # fmt: skip
        if around:
            holder = min(around, key=lambda h: (h.end - h.start, h.start))
            bisect.insort(holder.children, span, key=lambda c: (c.start, c.span_id))
        else:
            kept.append(span)
    siblings[:] = kept


def parents(roots: list[Span], allowed: set[str]) -> dict[int, Span]:
    """Each span's parent (by id()), after agents adopt the spans written beside them."""
    _adopt(roots, allowed)
    parent: dict[int, Span] = {}
    stack = list(roots)
    while stack:
        span = stack.pop()
        _adopt(span.children, allowed)
        for child in span.children:
            parent[id(child)] = span
        stack.extend(span.children)
    return parent


def _node(span: Span) -> str | None:
    """The LangGraph node a span runs in: `langgraph_node` (Langfuse's metadata), or in
    OpenInference's `metadata` JSON, or that metadata nested (`metadata.langgraph_node`, as
    Phoenix's span JSON and dataframes give it)."""
    raw = span.attrs.get("langgraph_node", span.attrs.get("metadata.langgraph_node"))
    if raw is None:
        meta = span.attrs.get("metadata")
        try:
            raw = json_mapping(meta).get("langgraph_node") if meta is not None else None
        except ImportError_:
            raw = None
    return str(raw) if isinstance(raw, str) and raw not in ("", "__start__", "__end__") else None


def delegated(span: Span, kind: str, convention: str | None, parent: Span | None) -> str | None:
    """The agent a span that is not an agent span starts all the same: a LangGraph node's top
    span under Langfuse or OpenInference (a CHAIN, a span), and a span of another service than
    its parent's (a delegation over A2A or HTTP, its parent link or a W3C link)."""
    if parent is None or kind == AGENT:
        return None
    node = _node(span)
    langgraph = kind == CONTAINER and convention in ("openinference", "langfuse")
    if langgraph and node and node != _node(parent):
        return node
    if span.service and parent.service and span.service != parent.service:
        return span.service
    return None
