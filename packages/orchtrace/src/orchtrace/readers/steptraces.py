"""Exports that record no times, read in steps mode: SWE-agent and mini-SWE-agent trajectories,
and ATIF trajectories or AgentOps spans whose times are missing.

A run without times is still a run: its agents, model calls, tool calls, tokens and cost are
known, and so is their order. Such an export's spans are laid out in that order (`lay_out`:
each model call or tool call one unit after the one before, an agent span over its children),
made into a trace as any export is, and the trace is then put in steps mode (`in_steps`): each
event's `t` its place in the order, no `t_end`, so `metrics` weighs every event 1 and reports
no wall-time measure (no makespan, no observed speedup).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from .spans import ImportError_, Span, integer

UNTIMED = "orchtrace.untimed"  # the mark of a span laid out by order, its times invented
SECOND = 1_000_000_000
STEPS_NOTE = "the export records no times: read in steps mode (t is each event's place in order)"


def lay_out(spans: list[Span]) -> list[Span]:
    """SPANS (one trace or several) with times from their order: a span without children one
    unit long after the span before it, a span with children from its first child's start to
    its last child's end (so it has no time of its own); children in the order listed."""
    ids = {s.span_id for s in spans}
    below: dict[str | None, list[Span]] = defaultdict(list)
    for s in spans:
        below[s.parent_id if s.parent_id in ids else None].append(s)
    clock = 0
    stack: list[tuple[Span, bool]] = [(s, False) for s in reversed(below[None])]
    while stack:  # depth first, without recursion (sub-agents may nest deep)
        span, done = stack.pop()
        kids = below.get(span.span_id, [])
        if done:
            span.end = clock
            continue
        span.start = clock
        span.attrs[UNTIMED] = True
        if kids:
            stack.append((span, True))
            stack.extend((k, False) for k in reversed(kids))
        else:
            clock += SECOND
            span.end = clock
    return spans


def untimed(spans: list[Span]) -> bool:
    return any(s.attrs.get(UNTIMED) for s in spans)


def in_steps(trace: dict[str, Any]) -> dict[str, Any]:
    """TRACE, made from spans laid out by order, in steps mode: each event's t its place in
    the order of the laid-out times (ties in the order listed), no t_end; the steps over a
    span's own time, which a laid-out span does not have, left out with their edges."""
    events = trace["events"]
    own = {
        e["id"]
        for e in events
        if e["type"] == "step"
        and (e.get("attributes") or {}).get("own_time")
        and not e.get("tokens")
        and not e.get("cost_usd")
    }
    kept = [e for e in events if e["id"] not in own]
    ranked = sorted(range(len(kept)), key=lambda i: (kept[i]["t"], i))
    for place, i in enumerate(ranked):
        kept[i]["t"] = place
        kept[i].pop("t_end", None)
    trace["events"] = kept
    trace["edges"] = [
        e for e in trace["edges"] if e["source"] not in own and e["target"] not in own
    ]
    return trace


def _usage(attrs: dict[str, Any], where: str, prompt: Any, completion: Any, cost: Any) -> None:
    """Token counts and a cost, checked, as the GenAI and OpenInference attributes."""
    for key, raw in (("gen_ai.usage.input_tokens", prompt), ("gen_ai.usage.output_tokens",
                                                              completion)):  # fmt: skip
        if raw is None:
            continue
        if integer(raw) is None:
            raise ImportError_(f"{where}: a token count is a whole number, not {raw!r}")
        attrs[key] = raw
    if cost is not None:
        attrs["llm.cost.total"] = cost


def _agent(trace: str, name: str, where: str) -> Span:
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    return Span(trace, "agent", None, f"invoke_agent {name}", 0, 0, attrs, name, where=where)


def _chat(trace: str, k: int, name: str, model: str, where: str) -> Span:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
    return Span(trace, f"step-{k}", "agent", f"chat {model}".strip(), 0, 0, attrs, name,
                where=where)  # fmt: skip


def _tool(trace: str, k: int, name: str, tool: str, call_id: str | None, where: str) -> Span:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}
    if call_id:
        attrs["gen_ai.tool.call.id"] = call_id
    return Span(trace, f"tool-{k}", "agent", f"execute_tool {tool}", 0, 0, attrs, name,
                where=where)  # fmt: skip


def _mapping(raw: Any, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ImportError_(f"{where}: expected an object")
    return raw


def swe_agent_spans(doc: dict[str, Any], where: str) -> list[Span]:
    """A SWE-agent trajectory (`.traj`: trajectory, history, info): one agent, each trajectory
    step a model call and its action a tool call (the function its history calls, else the
    command's first word), in order. SWE-agent
    records the run's tokens and cost only in total (info.model_stats): they are put on its
    last model call."""
    steps = doc["trajectory"]
    history: list[Any] = doc["history"] if isinstance(doc.get("history"), list) else []
    names = [h.get("agent") for h in history if isinstance(h, dict) and h.get("agent")]
    name = str(names[0] if names else doc.get("environment") or "swe-agent")
    info = _mapping(doc.get("info"), f"{where}info")
    trace = str(info.get("instance_id") or doc.get("instance_id") or "swe-agent")
    calls = [  # (id, tool) of function-calling runs, one per step (the last may have none)
        (c.get("id"), _mapping(c.get("function"), f"{where}history").get("name"))
        for h in history
        if isinstance(h, dict) and h.get("role") == "assistant"
        for c in (h["tool_calls"] if isinstance(h.get("tool_calls"), list) else [])
        if isinstance(c, dict)
    ]
    spans = [_agent(trace, name, where or "the trajectory")]
    for k, step in enumerate(steps):
        at = f"{where}trajectory[{k}]"
        if not isinstance(step, dict):
            raise ImportError_(f"{at}: expected a step object")
        spans.append(_chat(trace, k, name, "", at))
        action = step.get("action")
        if isinstance(action, str) and action.strip():
            call, tool = calls[k] if k < len(calls) else (None, None)
            if not isinstance(tool, str) or not tool:  # no function call: the command's name
                tool = re.split(r"\s", action.strip(), maxsplit=1)[0]
            spans.append(_tool(trace, k, name, tool, call if isinstance(call, str) else None, at))
    chats = [s for s in spans if s.span_id.startswith("step-")]
    if not chats:
        raise ImportError_(f"{where}trajectory: a SWE-agent trajectory with no step")
    stats = _mapping(info.get("model_stats"), f"{where}info.model_stats")
    cost = stats.get("instance_cost", stats.get("total_cost"))
    _usage(chats[-1].attrs, f"{where}info.model_stats", stats.get("tokens_sent"),
           stats.get("tokens_received"), cost)  # fmt: skip
    return lay_out(spans)


def mini_swe_spans(doc: dict[str, Any], where: str) -> list[Span]:
    """A mini-SWE-agent trajectory (`trajectory_format` "mini-swe-agent-1"): one agent, each
    assistant message a model call (its tokens and cost from the response's usage, when
    kept) and, where a message answers it, the bash command it ran; without usage, the run's
    cost (info.model_stats) is put on its last model call."""
    messages = doc["messages"]
    if not isinstance(messages, list):
        raise ImportError_(f"{where}messages: expected the list of messages")
    info = _mapping(doc.get("info"), f"{where}info")
    config = _mapping(info.get("config"), f"{where}info.config")
    model = str(_mapping(config.get("model"), f"{where}info.config.model").get("model_name") or "")
    name = "mini-swe-agent"
    trace = str(doc.get("instance_id") or "mini-swe-agent")
    spans = [_agent(trace, name, where or "the trajectory")]
    priced = False
    for k, message in enumerate(messages):
        at = f"{where}messages[{k}]"
        if not isinstance(message, dict):
            raise ImportError_(f"{at}: expected a message object")
        if message.get("role") != "assistant":
            continue
        chat = _chat(trace, k, name, model, at)
        response = _mapping(_mapping(message.get("extra"), f"{at}.extra").get("response"),
                            f"{at}.extra.response")  # fmt: skip
        usage = _mapping(response.get("usage"), f"{at}.extra.response.usage")
        if usage:
            _usage(chat.attrs, f"{at}.extra.response.usage", usage.get("prompt_tokens"),
                   usage.get("completion_tokens"), usage.get("cost"))  # fmt: skip
            priced = priced or usage.get("cost") is not None
        spans.append(chat)
        answered = k + 1 < len(messages) and _mapping(messages[k + 1], f"{where}messages[{k + 1}]")
        if answered and answered.get("role") == "user":
            spans.append(_tool(trace, k, name, "bash", None, at))
    chats = [s for s in spans if s.span_id.startswith("step-")]
    if not chats:
        raise ImportError_(f"{where}messages: a mini-SWE-agent trajectory with no model call")
    if not priced:
        stats = _mapping(info.get("model_stats"), f"{where}info.model_stats")
        _usage(chats[-1].attrs, f"{where}info.model_stats", None, None,
               stats.get("instance_cost"))  # fmt: skip
    return lay_out(spans)
