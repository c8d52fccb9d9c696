"""Turns exported spans (spans.py) into orchestration traces, one per traceId.

Spans are read by the conventions they carry: the OpenTelemetry GenAI semantic conventions
(`gen_ai.operation.name`), OpenInference span kinds (`openinference.span.kind`, as LangChain and
LangGraph instrumentations write them), the Vercel AI SDK's `ai.*` spans and, failing those,
Langfuse's observation types (`langfuse.observation.type`). Each span becomes events of the
agent it belongs to (its own agent for an agent span, else the nearest agent ancestor, else its
service): an agent span is a spawn by the parent agent and a return at its end, which the
parent's next event waits for, and so is a span of another service than its parent's (or linked
to a span of the export, its parent absent) and a LangGraph node's top span; a tool span a tool
call and its result; a guardrail a safety event; a model span (chat, completion, embeddings),
and a span of no known convention, steps over its own time, the stretches its children leave
uncovered, its tokens on the last; any other span (chains, retrievers, the SDK's outer calls) a
step when it has no children, else only the container of its children. A model span always
counts its own tokens and cost (US dollars, `cost_usd`); any other span's are taken as the total
of the spans below it and counted only when none of those carries them (on its return, its
result, or its own stretches). traces/METRICS.md documents the mapping; spantree.py builds the
tree the spans are read from.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from .conventions import (
    AGENT,
    CALL_IDS,
    CONVENTIONS,
    CREATE,
    INPUT_TOKENS,
    MEASURES,
    MODEL,
    NO_TURN,
    OUTPUT_TOKENS,
    OWN,
    SAFETY,
    TOOL,
    TOOL_NAMES,
    agent_name,
    as_text,
    carried,
    delegated,
    first_attr,
    kind_of,
    parents,
)
from .spans import ImportError_, Span
from .spantree import carried_below, own_stretches, tree, uncovered, unwrapped
from .steptraces import STEPS_NOTE, in_steps, untimed

__all__ = ["INPUT_TOKENS", "OUTPUT_TOKENS", "found", "to_traces"]


def found(spans: list[Span]) -> str:
    """What conventions SPANS follow, in words."""
    counts = Counter(carried(s) for s in spans)
    parts = [f"{n} {CONVENTIONS[c]} span(s)" for c, n in counts.items() if c is not None]
    if counts[None]:
        parts.append(f"{counts[None]} span(s) of no known convention")
    return ", ".join(parts)


def to_traces(spans: list[Span], convention: str = "auto") -> tuple[list[dict[str, Any]], str]:
    """One trace per traceId of SPANS, in the order they first appear, and a note on what was
    recognised. CONVENTION: 'auto' (every one below), 'genai' (or 'otlp'), 'openinference',
    'vercel' or 'langfuse'; one that no span follows is an ImportError_ naming what was found."""
    counts = Counter(carried(s) for s in spans)
    if convention == "auto":
        allowed = set(CONVENTIONS)
        note = "" if set(counts) - {None} else f"no span follows {', '.join(CONVENTIONS.values())}"
    else:
        name = "genai" if convention == "otlp" else convention
        if not counts[name]:
            raise ImportError_(f"no span follows {CONVENTIONS[name]}; found {found(spans)}")
        allowed, note = {name}, ""
    if note:
        note += ": each span is a step of its service"
    groups: dict[str, list[Span]] = defaultdict(list)
    for s in spans:
        groups[s.trace_id].append(s)
    traces = [_trace(group, allowed, trace_id) for trace_id, group in groups.items()]
    if untimed(spans):  # an export without times (one reader's, so all of its traces)
        traces = [in_steps(trace) for trace in traces]
        note = "; ".join(x for x in (note, STEPS_NOTE) if x)
    return traces, note


def _spent(span: Span, kind: str, below: dict[str, set[int]]) -> dict[str, Any]:
    """The tokens and cost SPAN's events carry: a model span's own, any other span's only when
    nothing below it carries them."""
    out = {}
    for name, measure in MEASURES.items():
        value = measure(span) if kind == MODEL or id(span) not in below[name] else None
        if value is not None:
            out[name] = value
    return out


def _one_at_a_time(
    events: list[dict[str, Any]], lanes: dict[str, list[str]], first_hand: set[str]
) -> dict[str, str]:
    """Each agent's steps, made not to overlap: an agent's time is its work once, however many of
    its spans cover it (a chain or a node wrapped around a model call, written beside it rather than
    above it). Model steps go first, then the others, each in order of start, and each keeps what
    the steps before it leave, split where they leave several stretches (its tokens, cost and error
    on the last), or an instant at its end where they leave none. Returns the step each new piece
    was split from, by id."""
    by_id = {e["id"]: e for e in events}
    made: dict[str, str] = {}  # the id of each piece of a split step: the step's
    for lane in lanes.values():
        steps = [by_id[i] for i in lane if by_id[i]["type"] == "step"]
        steps.sort(key=lambda e: (e["id"] not in first_hand, e["t"], int(e["id"][2:])))
        covered: list[tuple[float, float]] = []
        for step in steps:
            pieces = uncovered(step["t"], step["t_end"], covered)
            if pieces == [(step["t"], step["t_end"])] or step["t"] == step["t_end"]:
                continue
            if not pieces:
                step["t"] = step["t_end"]
                continue
            carried: dict[str, Any] = {
                k: step.pop(k) for k in ("tokens", "cost_usd", "error") if k in step
            }
            for k, (start, end) in enumerate(pieces):
                piece = step if k == 0 else {**step, "id": f"ev{len(events) + 1}"}
                piece.update(t=start, t_end=end)
                if k == len(pieces) - 1:
                    piece.update(carried)
                if k:
                    events.append(piece)
                    lane.append(piece["id"])
                    made[piece["id"]] = step["id"]
    return made


def _trace(spans: list[Span], allowed: set[str], trace_id: str) -> dict[str, Any]:
    roots = unwrapped(tree(spans), allowed)
    parent_of = parents(roots, allowed)
    below = carried_below(roots)
    t0 = min(s.start for s in spans)
    events: list[dict[str, Any]] = []
    edges: list[dict[str, str]] = []
    agents: dict[str, dict[str, Any]] = {}
    lanes: dict[str, list[str]] = defaultdict(list)
    # (return event, agent returned to, its spawn, the run of that agent it returns to)
    returned: list[tuple[str, str, str, int]] = []
    # per run of an agent (the span it runs in): the numbers of the first and last events made in
    # it, its own and those of the agents it spawns
    run_start, run_end = [0], [float("inf")]
    first_hand: set[str] = set()  # steps of model spans, whose time the agent's others yield

    def emit(kind: str, agent: str, t_ns: int, end_ns: int, span: Span, **extra: Any) -> str:
        eid = f"ev{len(events) + 1}"
        event = {
            "id": eid,
            "type": kind,
            "agent": agent,
            "t": round((t_ns - t0) * 1e-9, 9),
            "t_end": round((max(end_ns, t_ns) - t0) * 1e-9, 9),
            "span_id": span.span_id,
            **{k: v for k, v in extra.items() if v is not None},
        }
        events.append(event)
        lanes[agent].append(eid)
        return eid

    def above(agent: str) -> set[str]:
        """The agents above AGENT: its parent, theirs, and so on."""
        seen: set[str] = set()
        at = agents.get(agent, {}).get("parent")
        while at is not None and at not in seen:
            seen.add(at)
            at = agents.get(at, {}).get("parent")
        return seen

    def waits_for_last(inside: list[dict[str, Any]], closing: str) -> None:
        """CLOSING (a return, a tool's result) follows the last of the events INSIDE its span
        of its agent: at one instant, instants are otherwise side by side."""
        at = events[-1]["t"]  # CLOSING's time (children may outlast a parent: clock skew)
        last = max((e["t_end"] for e in inside if e["t_end"] <= at), default=None)
        edges.extend(
            {"source": e["id"], "target": closing, "type": "temporal"}
            for e in inside
            if e["t_end"] == last
        )

    def busy(
        agent: str, span: Span, error: str | None = None, spent: dict[str, Any] | None = None
    ) -> None:
        """Steps of AGENT over SPAN's own time (what its children leave), where it has any,
        the last with ERROR and SPENT (the tokens and cost of an agent span that has no return
        to carry them): the time an agent spends in its own span, or waiting on a tool, is its
        work too."""
        stretches = [(start, end) for start, end in own_stretches(span) if end > start]
        for k, (start, end) in enumerate(stretches):
            extra = {"error": error, **(spent or {})} if k == len(stretches) - 1 else {}
            emit("step", agent, start, end, span, attributes=OWN, **extra)

    # depth first, without recursion (spans may nest thousands deep): a task is a span to
    # visit, with the agent it acts for, or the closing step of a span whose children are done
    tasks: list[tuple[Span, str | None] | Callable[[], None]] = [(r, None) for r in roots[::-1]]

    active: dict[int, frozenset[str]] = {}  # the agents at work around each span (by id())
    run_of: dict[int, int] = {}  # the run of its agent each span acts in (by id(); 0 at the top)

    def then_visit(
        children: list[Span], agent: str, closing: Callable[[], None] | None, run: int
    ) -> None:
        if closing is not None:
            tasks.append(closing)
        if children:
            around = active.get(id(parent_of.get(id(children[0]))), frozenset()) | {agent}
            active.update((id(child), around) for child in children)
            run_of.update((id(child), run) for child in children)
        tasks.extend((child, agent) for child in reversed(children))

    while tasks:
        task = tasks.pop()
        if callable(task):
            task()
            continue
        span, agent = task
        run = run_of.get(id(span), 0)
        kind, convention = kind_of(span, allowed)
        delegate = delegated(span, kind, convention, parent_of.get(id(span)))
        if delegate is not None and delegate != agent:
            kind = AGENT
        else:
            delegate = None
        spent = _spent(span, kind, below)
        if kind == AGENT:
            name = delegate or agent_name(span, convention, own=True)
            if agent is not None and (name in active.get(id(span), ()) or name in above(agent)):
                name = agent  # a call back to an agent above: the caller's work (no loop)
            agents.setdefault(name, {"id": name, "role": "agent", "span_id": span.span_id})
            if agent is None or agent == name:  # no return: its own steps carry its tokens
                busy(name, span, spent=spent)
                then_visit(span.children, name, None, run)
                continue
            agents[name].setdefault("parent", agent)
            spawn = emit("spawn", agent, span.start, span.start, span, target=name)
            first = len(events)  # the spawned agent's first event, if any
            busy(name, span)

            def returns(
                span: Span = span,
                name: str = name,
                agent: str = agent,
                spawn: str = spawn,
                first: int = first,
                spent: dict[str, Any] = spent,
                runs: tuple[int, int] = (run, len(run_end)),
            ) -> None:
                ret = emit(
                    "return",
                    name,
                    span.end,
                    span.end,
                    span,
                    target=agent,
                    error=span.error,
                    **spent,
                )
                # the spawn leads to the spawned agent's first events in time (those of one
                # instant run side by side: each waits for the spawn)
                own = [e for e in events[first:-1] if e["agent"] == name]
                begin = min((e["t"] for e in own), default=None)
                starts = [e for e in own if e["t"] == begin] or [events[-1]]
                edges.extend({"source": spawn, "target": e["id"], "type": "spawn"} for e in starts)
                waits_for_last(own, ret)
                returned.append((ret, agent, spawn, runs[0]))
                run_end[runs[1]] = len(events)

            run_start.append(first + 1)  # the spawned agent's events are numbered after it
            run_end.append(float("inf"))
            then_visit(span.children, name, returns, len(run_end) - 1)
            continue
        owner = agent or agent_name(span, convention)  # another service's is a delegation
        agents.setdefault(owner, {"id": owner, "role": "agent", "span_id": span.span_id})
        if kind == TOOL:
            call_id = as_text(first_attr(span, CALL_IDS) or span.span_id)
            tool = as_text(first_attr(span, TOOL_NAMES) or span.name)
            call = emit(
                "tool_call", owner, span.start, span.start, span, tool=tool, call_id=call_id
            )
            first = len(events)
            busy(owner, span)

            def answers(
                span: Span = span,
                owner: str = owner,
                tool: str = tool,
                call_id: str = call_id,
                call: str = call,
                first: int = first,
                spent: dict[str, Any] = spent,
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
                    **spent,
                )
                edges.append({"source": call, "target": result, "type": "tool_dependency"})
                waits_for_last([e for e in events[first:-1] if e["agent"] == owner], result)

            then_visit(span.children, owner, answers, run)
            continue
        if kind == CREATE:
            name = agent_name(span, convention, own=True)
            emit("spawn", owner, span.start, span.end, span, target=name, decision="spawn")
        elif kind == SAFETY:
            emit("safety_event", owner, span.start, span.end, span, error=span.error)
        elif kind == MODEL or convention is None or (span.children and spent):
            stretches = own_stretches(span)
            for k, (start, end) in enumerate(stretches):
                last = k == len(stretches) - 1
                extra = {"error": span.error, **spent} if last else {}
                mark = None if kind == MODEL else NO_TURN
                step = emit("step", owner, start, end, span, attributes=mark, **extra)
                if kind == MODEL:
                    first_hand.add(step)
        elif not span.children:
            emit("step", owner, span.start, span.end, span, error=span.error, attributes=NO_TURN,
                 **spent)  # fmt: skip
        else:
            busy(owner, span, span.error)  # no other event of the span says it failed
        then_visit(span.children, owner, None, run)

    made = _one_at_a_time(events, lanes, first_hand)
    events.sort(key=lambda e: (e["t"], e["t_end"], int(e["id"][2:])))  # instants first
    times = {e["id"]: e["t"] for e in events}
    ends = {e["id"]: e["t_end"] for e in events}
    for lane in lanes.values():
        lane.sort(key=lambda i: (times[i], int(i[2:])))
        # an event follows the one of its agent that ended last by its start (and started
        # before it): spans that overlap, or start together, run side by side
        by_end = sorted(lane, key=lambda i: (ends[i], times[i], int(i[2:])))
        keys = [(ends[i], times[i]) for i in by_end]
        for b in lane:  # one that takes time follows the instants at its start too
            find = bisect.bisect_right if ends[b] > times[b] else bisect.bisect_left
            at = find(keys, (times[b], times[b]))
            if at:
                edges.append({"source": by_end[at - 1], "target": b, "type": "temporal"})
    place = {i: k for lane in lanes.values() for k, i in enumerate(lane)}

    def number(eid: str) -> int:  # the order events were made in (a split step's: its own)
        return int(made.get(eid, eid)[2:])

    for ret, parent, spawn, parent_run in returned:  # the parent's next events wait for it
        lane = lanes[parent]
        at = bisect.bisect_left(lane, times[ret], key=times.__getitem__)
        at = max(at, place[spawn] + 1)  # after the spawn (an agent span of no length ends as
        # it starts, beside other spawns of that instant), in the same run of the parent
        mine = [i for i in lane[at:] if run_start[parent_run] <= number(i) <= run_end[parent_run]]
        if mine:  # every event of that instant waits: they run side by side
            then = times[mine[0]]
            edges.extend(
                {"source": ret, "target": i, "type": "return"} for i in mine if times[i] == then
            )
    counted: dict[str, Any] = {
        "tool_calls": sum(e["type"] == "tool_call" for e in events),
        "messages": 0,
    }
    tokens = [e["tokens"] for e in events if "tokens" in e]
    if tokens:
        counted["tokens"] = sum(tokens)
    dollars = [e["cost_usd"] for e in events if "cost_usd" in e]
    if dollars:
        counted["usd"] = round(sum(dollars), 9)
    wall = (max(s.end for s in spans) - t0) * 1e-9
    return {
        "schema_version": "1.0",
        "trace_id": trace_id or f"imported-{roots[0].span_id}",
        "agents": list(agents.values()),
        "events": events,
        "edges": _distinct(edges),
        "costs": {**counted, "wall_clock_s": round(wall, 9)},
    }


def _distinct(edges: list[dict[str, str]]) -> list[dict[str, str]]:
    """EDGES without repeats: a dependency found twice (a return that is also the temporal
    neighbour of the event it unblocks) is one edge, kept where it was first found."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for e in edges:
        key = (e["source"], e["target"], e["type"])
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
