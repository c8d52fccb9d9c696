"""What the tests of printed and dumped span exports share: a one-agent chain's expected shape
and a trace's steps."""

from __future__ import annotations

from typing import Any

from importhelp import measured


def one_chain(trace: dict[str, Any], tool_calls: int, tokens: int, wall_s: float) -> dict[str, Any]:
    """A run done one thing at a time: its costs are these, and its work, critical path and
    makespan are all its wall time (to four places, as metrics rounds); its measures."""
    assert trace["costs"] == {
        "tool_calls": tool_calls,
        "messages": 0,
        "tokens": tokens,
        "wall_clock_s": wall_s,
    }
    m = measured(trace)
    assert (m["work"], m["critical_path"], m["makespan"]) == (round(wall_s, 4),) * 3
    return m


def steps(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (e["type"], e["agent"], e["t"], e["t_end"], e["span_id"], e.get("tokens"))
        for e in trace["events"]
    ]
