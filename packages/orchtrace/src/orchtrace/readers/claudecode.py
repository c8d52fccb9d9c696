"""Claude Code (and Claude Agent SDK) session transcripts: JSON Lines, one record a line, as
Claude Code keeps them under ~/.claude/projects.

A session is one agent, the main one. Its records that carry a `message` are read: each
assistant message (one model call, written over several lines that share `message.id`, each
repeating its usage) a chat span from the record it answers (its first line's `parentUuid`) to
its last line, with its usage once (input tokens with cache creation and cache reads, and the
largest output count a line gives, as streaming lines count up); each `tool_use` block an
execute_tool span from its line to the line of its `tool_result`. A Task (or Agent) tool call
that ran a sub-agent is its spawn: the sub-agent's transcript, found by the `agentId` its result
(or the progress lines under it) names, is read the same way under that call, from the
session's `subagents/agent-<agentId>.jsonl` beside the file, or from the file's own side-chain
records with that `agentId`. Progress, hook and snapshot records are not work, and user
prompts are input. A transcript whose sub-agent cannot be found is refused, as it would leave
that agent's work out of the run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from .spans import ImportError_, Span, integer, iso_ns, loads

TYPES = {"user", "assistant", "progress", "system", "summary", "file-history-snapshot"}
SPAWNING = {"Task", "Agent"}  # the tool names Claude Code runs a sub-agent with
_MAX_DEPTH = 16


def is_transcript(docs: list[Any]) -> bool:
    """Whether DOCS (the decoded lines of a JSON Lines file) are a Claude Code transcript."""
    kinds = [d.get("type") for d in docs if isinstance(d, dict)]
    return (
        len(kinds) == len(docs)
        and all(isinstance(k, str) and k in TYPES for k in kinds)
        and any(isinstance(d.get("sessionId"), str) and "uuid" in d for d in docs)
    )


def _obj(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ImportError_(f"{where}: expected an object")
    return raw


def _tokens(usage: dict[str, Any], key: str, where: str) -> int:
    raw = usage.get(key)
    if raw is None:
        return 0
    n = integer(raw)
    if n is None or n < 0:
        raise ImportError_(f"{where}.message.usage.{key}: a token count is a whole number >= 0")
    return n


def transcript_spans(
    docs: list[Any], where: str, beside: Callable[[str], bytes | None] | None
) -> list[Span]:
    """The spans of a transcript's lines DOCS; BESIDE reads a file beside it by relative path
    (None: only side chains in the file itself are found)."""
    records = [(f"{where}line {n + 1}", d) for n, d in enumerate(docs)]
    session = next(str(d["sessionId"]) for d in docs if isinstance(d.get("sessionId"), str))
    main = [(at, d) for at, d in records if not d.get("isSidechain")]
    side: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for at, d in records:
        if d.get("isSidechain") and d.get("agentId"):
            side[str(d["agentId"])].append((at, d))
    progress: dict[str, str] = {}  # a Task call's id -> the sub-agent it ran (progress lines)
    for _, d in records:
        data = d.get("data")
        if isinstance(data, dict) and data.get("agentId") and d.get("parentToolUseID"):
            progress.setdefault(str(d["parentToolUseID"]), str(data["agentId"]))

    def sub_agent(agent_id: str, at: str) -> list[tuple[str, dict[str, Any]]]:
        if side.get(agent_id):
            return side[agent_id]
        name = f"{session}/subagents/agent-{agent_id}.jsonl"
        data = beside(name) if beside is not None else None
        if data is None:
            raise ImportError_(
                f"{at}: the transcript of sub-agent {agent_id} ({name}) is neither in the file "
                "nor beside it; its work is part of the run: import the session from the folder "
                "that holds its subagents/ folder"
            )
        try:
            lines = [loads(x) for x in data.splitlines() if x.strip()]
        except (ValueError, UnicodeDecodeError) as exc:
            raise ImportError_(f"{name}: not JSON Lines ({exc})") from exc
        return [(f"{name} line {n + 1}", _obj(d, f"{name} line {n + 1}"))
                for n, d in enumerate(lines)]  # fmt: skip

    return _agent(main, "claude-code", session, None, sub_agent, progress, 0)


def _agent(
    records: list[tuple[str, dict[str, Any]]],
    name: str,
    trace: str,
    parent: str | None,
    sub_agent: Callable[[str, str], list[tuple[str, dict[str, Any]]]],
    progress: dict[str, str],
    depth: int,
) -> list[Span]:
    """One agent's spans: its invoke_agent span over its model calls and tool calls, and its
    sub-agents' below the calls that ran them. PARENT is the calling span's id."""
    if depth > _MAX_DEPTH:
        raise ImportError_(f"sub-agents nested over {_MAX_DEPTH} levels deep")
    by_uuid: dict[str, int] = {}
    messages: dict[str, list[tuple[str, dict[str, Any], int]]] = defaultdict(list)
    calls: dict[str, tuple[str, str, int, dict[str, Any]]] = {}  # id -> (where, tool, t, input)
    results: dict[str, tuple[int, dict[str, Any]]] = {}  # tool_use_id -> (t, toolUseResult)
    times: list[int] = []
    for at, d in records:
        if "message" not in d or d.get("type") not in ("user", "assistant"):
            continue
        t = iso_ns(d.get("timestamp"), f"{at}.timestamp")
        times.append(t)
        if isinstance(d.get("uuid"), str):
            by_uuid[d["uuid"]] = t
        message = _obj(d["message"], f"{at}.message")
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if d["type"] == "assistant":
            messages[str(message.get("id") or d.get("uuid") or at)].append((at, d, t))
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id"):
                    given = b.get("input")
                    tool = str(b.get("name") or "tool")
                    calls[str(b["id"])] = (at, tool, t, given if isinstance(given, dict) else {})
        else:
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id"):
                    extra = d.get("toolUseResult")
                    results[str(b["tool_use_id"])] = (t, extra if isinstance(extra, dict) else {})
    if not messages:
        where = records[0][0] if records else "the transcript"
        raise ImportError_(f"{where}: an agent with no model call")
    span_id = parent + "/" + name if parent else trace
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    spans = [Span(trace, span_id, parent, f"invoke_agent {name}", min(times), max(times), attrs,
                  name, where=records[0][0])]  # fmt: skip
    for mid, lines in messages.items():
        at, first, t0 = lines[0]
        start = by_uuid.get(str(first.get("parentUuid")), t0)
        model = str(_obj(first["message"], f"{at}.message").get("model") or "")
        usage = [_obj(d["message"].get("usage") or {}, f"{a}.message.usage") for a, d, _ in lines]
        tokens_in = sum(
            _tokens(usage[0], key, at)
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        tokens_out = max(  # streaming lines count the output up
            _tokens(u, "output_tokens", a) for u, (a, _, _) in zip(usage, lines, strict=True)
        )
        chat = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "gen_ai.usage.input_tokens": tokens_in,
            "gen_ai.usage.output_tokens": tokens_out,
        }
        spans.append(Span(trace, f"{span_id}/{mid}", span_id, f"chat {model}".strip(),
                          min(start, t0), lines[-1][2], chat, name, where=at))  # fmt: skip
    for call_id, (at, tool, t, given) in calls.items():
        end, extra = results.get(call_id, (t, {}))
        tool_attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                      "gen_ai.tool.call.id": call_id}  # fmt: skip
        spans.append(
            Span(
                trace,
                f"{span_id}/{call_id}",
                span_id,
                f"execute_tool {tool}",
                t,
                max(t, end),
                tool_attrs,
                name,
                ended=call_id in results,
                where=at,
            )
        )
        agent_id = extra.get("agentId") or progress.get(call_id)
        if tool in SPAWNING and agent_id:
            kind = given.get("subagent_type")
            sub = f"{kind}-{agent_id}" if isinstance(kind, str) and kind else f"agent-{agent_id}"
            spans += _agent(sub_agent(str(agent_id), at), sub, trace, f"{span_id}/{call_id}",
                            sub_agent, progress, depth + 1)  # fmt: skip
    return spans
