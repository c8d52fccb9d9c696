"""ATIF trajectories (Harbor's Agent Trajectory Interchange Format: `schema_version` "ATIF-...",
`steps`) read into plain spans: the agent as an invoke_agent span, each agent step a chat span
and each tool call an execute_tool span beside it, each sub-trajectory an observation names a
sub-agent under the call it answers. A trajectory with a step without a time is read in steps
mode (steptraces.py).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from .beside import BESIDE
from .spans import ImportError_, Span, as_mapping, integer, iso_ns, loads
from .steptraces import lay_out


def is_atif(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and str(item.get("schema_version", "")).startswith("ATIF")
        and "steps" in item
    )


def _atif_time(raw: Any, where: str) -> int:
    """Seconds since the epoch (a number) or an ISO 8601 instant, in nanoseconds."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        if not 0 <= raw < 1e11:  # NaN, infinities and years past 5138 fail this too
            raise ImportError_(f"{where}: {raw!r} is not a time in seconds since the epoch")
        return round(raw * 1_000_000_000)
    return iso_ns(raw, where)


class _Untimed(Exception):
    """An ATIF step without a time: its trajectory is read in steps mode."""


_NO_TIMES: ContextVar[bool] = ContextVar("no_times", default=False)


def _atif_when(step: dict[str, Any], where: str) -> tuple[int, int]:
    """A step's (or tool call's) start and end: NeMo Agent Toolkit's invocation times in its
    `extra` when given, else the step's timestamp as an instant; (0, 0) when the run is read
    in steps mode (`steptraces.lay_out` gives the times)."""
    if _NO_TIMES.get():
        return 0, 0
    invocation = as_mapping(as_mapping(step.get("extra")).get("invocation"))
    if invocation.get("start_timestamp") is not None:
        start = _atif_time(invocation["start_timestamp"], f"{where}.extra.invocation")
        end = invocation.get("end_timestamp", invocation["start_timestamp"])
        return start, max(start, _atif_time(end, f"{where}.extra.invocation"))
    if step.get("timestamp") is None:
        raise _Untimed(where)
    at = iso_ns(step["timestamp"], f"{where}.timestamp")
    return at, at


_MAX_DEPTH = 32  # sub-agents of sub-agents: a real run nests a few levels, a cycle forever


def atif_spans(doc: dict[str, Any], where: str) -> list[Span]:
    """An ATIF trajectory (Harbor's Agent Trajectory Interchange Format): the agent as an
    invoke_agent span over its steps, each agent step a chat span (its model, its tokens and
    cost from `metrics`) and each tool call an execute_tool span beside it (the tool runs once
    the model has answered, often after the call's own end). The user's and system's steps are the
    agent's input, not its work, and are left out. Each sub-trajectory an observation result
    names (`subagent_trajectory_ref`) is a sub-agent the agent spawned, under the tool call
    the result answers (else under the agent): found among the file's own
    `subagent_trajectories` by `trajectory_id`, or as the file `trajectory_path` beside it."""
    embedded = {}
    for i, sub in enumerate(doc.get("subagent_trajectories") or []):
        if not isinstance(sub, dict) or not sub.get("trajectory_id"):
            raise ImportError_(f"{where}subagent_trajectories[{i}]: expected a trajectory with "
                               "its trajectory_id")  # fmt: skip
        embedded[str(sub["trajectory_id"])] = sub
    try:
        return _trajectory(doc, where, embedded, None, None, ())
    except _Untimed:  # a step without a time: the whole run in steps mode
        token = _NO_TIMES.set(True)
        try:
            return lay_out(_trajectory(doc, where, embedded, None, None, ()))
        finally:
            _NO_TIMES.reset(token)


def _trajectory(
    doc: dict[str, Any],
    where: str,
    embedded: dict[str, dict[str, Any]],
    trace: str | None,
    parent: str | None,
    above: tuple[str, ...],
) -> list[Span]:
    """The spans of one trajectory of a run: TRACE is the run's (None: this one starts it),
    PARENT the span that spawned it, ABOVE the sessions it is nested in."""
    session = str(doc.get("session_id") or doc.get("trajectory_id") or "")
    if not session:
        raise ImportError_(f"{where}session_id: an ATIF trajectory names its session")
    if session in above:
        raise ImportError_(f"{where}session_id: sub-trajectory {session!r} is its own ancestor")
    if len(above) >= _MAX_DEPTH:
        raise ImportError_(f"{where}: sub-agents nested over {_MAX_DEPTH} levels deep")
    trace = trace or session
    scope = f"{session}/" if parent else ""  # a sub-agent's steps are numbered from 1 too
    if not isinstance(doc.get("agent", {}), dict):
        raise ImportError_(f"{where}agent: expected an object naming the agent")
    agent = as_mapping(doc.get("agent"))
    name = str(agent.get("name") or "agent")
    steps = doc.get("steps")
    if not isinstance(steps, list):
        raise ImportError_(f"{where}steps: expected the trajectory's list of steps")
    spans: list[Span] = []
    subs: list[tuple[dict[str, Any], str, str]] = []  # (trajectory, where, spawning span)
    for i, step in enumerate(steps):
        at = f"{where}steps[{i}]"
        if not isinstance(step, dict):
            raise ImportError_(f"{at}: expected a step object")
        calls: dict[str, str] = {}
        if step.get("source") == "agent":
            step_id = f"{scope}step-{step.get('step_id', i)}"
            spans += _agent_step(step, at, trace, session, scope, step_id, name, agent, calls)
        subs += _sub_trajectories(step, at, embedded, calls, session)
    if not spans:
        raise ImportError_(f"{where or 'the trajectory'}: an ATIF trajectory with no agent step")
    for sub, at, spawner in subs:
        spans += _trajectory(sub, at, embedded, trace, spawner, (*above, session))
    root_attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    first, last = min(s.start for s in spans), max(s.end for s in spans)
    root = Span(trace, session, parent, f"invoke_agent {name}", first, last, root_attrs, name,
                where=where or "the trajectory")  # fmt: skip
    return [root, *spans]


def _agent_step(
    step: dict[str, Any],
    at: str,
    trace: str,
    session: str,
    scope: str,
    step_id: str,
    name: str,
    agent: dict[str, Any],
    calls: dict[str, str],
) -> list[Span]:
    """An agent step's chat span and its tool calls' execute_tool spans; CALLS gets each
    call's id and span id."""
    start, end = _atif_when(step, at)
    model = str(step.get("model_name") or agent.get("model_name") or "")
    metrics = as_mapping(step.get("metrics"))
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
    for ours, theirs in (("input", "prompt_tokens"), ("output", "completion_tokens")):
        if metrics.get(theirs) is None:
            continue
        if integer(metrics[theirs]) is None:
            raise ImportError_(f"{at}.metrics.{theirs}: a token count is a whole number")
        attrs[f"gen_ai.usage.{ours}_tokens"] = metrics[theirs]
    if metrics.get("cost_usd") is not None:
        attrs["llm.cost.total"] = metrics["cost_usd"]
    spans = [Span(trace, step_id, session, f"chat {model}".strip(), start, end, attrs, name,
                  where=at)]  # fmt: skip
    calls_made = step.get("tool_calls") or []
    if not isinstance(calls_made, list):
        raise ImportError_(f"{at}.tool_calls: expected a list of tool calls")
    for j, call in enumerate(calls_made):
        here = f"{at}.tool_calls[{j}]"
        if not isinstance(call, dict):
            raise ImportError_(f"{here}: expected a tool call object")
        invoked = as_mapping(as_mapping(call.get("extra")).get("invocation"))
        t0, t1 = _atif_when(call, here) if invoked else (start, end)
        tool = str(call.get("function_name") or "tool")
        call_attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}
        span_id = scope + str(call.get("tool_call_id") or f"{step_id}-{j}")
        if call.get("tool_call_id") is not None:
            calls[str(call["tool_call_id"])] = span_id
        spans.append(Span(trace, span_id, session, f"execute_tool {tool}", t0, t1, call_attrs,
                          name, where=here))  # fmt: skip
    return spans


def _sub_trajectories(
    step: dict[str, Any],
    at: str,
    embedded: dict[str, dict[str, Any]],
    calls: dict[str, str],
    session: str,
) -> list[tuple[dict[str, Any], str, str]]:
    """(trajectory, where, spawning span) for each sub-trajectory STEP's results name."""
    out = []
    results = as_mapping(step.get("observation")).get("results") or []
    for i, result in enumerate(results if isinstance(results, list) else []):
        refs = as_mapping(result).get("subagent_trajectory_ref") or []
        if not isinstance(refs, list):
            raise ImportError_(f"{at}.observation.results[{i}].subagent_trajectory_ref: "
                               "expected a list of references")  # fmt: skip
        spawner = calls.get(str(as_mapping(result).get("source_call_id")), session)
        for k, ref in enumerate(refs):
            here = f"{at}.observation.results[{i}].subagent_trajectory_ref[{k}]"
            out.append((_referenced(ref, here, embedded), f"{here} -> ", spawner))
    return out


def _referenced(ref: Any, here: str, embedded: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The trajectory REF names: embedded by trajectory_id, or the file trajectory_path."""
    if not isinstance(ref, dict):
        raise ImportError_(f"{here}: expected a reference object")
    tid, path = ref.get("trajectory_id"), ref.get("trajectory_path")
    if tid is not None and str(tid) in embedded:
        return embedded[str(tid)]
    beside = BESIDE.get()
    data = beside(str(path)) if path is not None and beside is not None else None
    if data is None:
        named = repr(path) if path is not None else repr(tid or ref.get("session_id"))
        raise ImportError_(
            f"{here}: sub-trajectory {named} is neither in the file's subagent_trajectories "
            "nor a file beside it; its sub-agent's work is part of the run: import the "
            "trajectory from the folder that holds its sub-trajectories"
        )
    try:
        sub = loads(data)
    except (ValueError, UnicodeDecodeError, ImportError_) as exc:
        raise ImportError_(f"{here}: sub-trajectory {path!r} is not JSON ({exc})") from exc
    if not is_atif(sub):
        raise ImportError_(f"{here}: sub-trajectory {path!r} is not an ATIF trajectory")
    return dict(sub)
