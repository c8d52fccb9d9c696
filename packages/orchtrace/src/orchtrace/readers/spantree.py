"""The tree of a trace's exported spans (importers.py reads it): each span's children, found
by its parent id or, the parent absent, by a W3C link; agent spans that only wrap another agent
taken out; which spans have tokens or cost carried below them; and the stretches of a span's
time that its children, or the steps before it, leave uncovered."""

from __future__ import annotations

from typing import Any

from .conventions import AGENT, MEASURES, kind_of
from .spans import ImportError_, Span


def tree(spans: list[Span]) -> list[Span]:
    """The roots of SPANS, each span's children set, in order of start."""
    by_id = {s.span_id: s for s in spans}
    roots: list[Span] = []
    ordered = sorted(spans, key=lambda s: (s.start, s.span_id))
    for s in ordered:
        s.children = []
    for s in ordered:
        parent = by_id.get(s.parent_id or "")
        if parent is None:  # a W3C link to a span of the export: what started this one
            parent = next((by_id[k] for k in s.links if k in by_id and k != s.span_id), None)
        (parent.children if parent is not None and parent is not s else roots).append(s)
    if not roots:
        raise ImportError_("every span has a parent in the export: their parent links loop")
    return roots


def unwrapped(roots: list[Span], allowed: set[str]) -> list[Span]:
    """ROOTS with every agent span that only wraps another agent replaced by that agent, at
    every depth. A wrapper has one child, an agent span, and no work of its own: the OpenAI
    Agents SDK's trace-level "Agent workflow" span around its agent, which OpenInference and
    Langfuse both mark as an agent. Kept, it would read as one agent spawning another."""

    def inner(span: Span) -> Span:
        while (
            len(span.children) == 1
            and kind_of(span, allowed)[0] == AGENT
            and kind_of(span.children[0], allowed)[0] == AGENT
        ):
            span = span.children[0]
        return span

    out = [inner(r) for r in roots]
    stack = list(out)
    while stack:  # a loop, not recursion: traces thousands of spans deep are read too
        span = stack.pop()
        span.children = [inner(c) for c in span.children]
        stack.extend(span.children)
    return out


def carried_below(roots: list[Span]) -> dict[str, set[int]]:
    """For each measure (tokens, cost), the ids (id()) of spans with a span carrying it
    somewhere below them."""
    below: dict[str, set[int]] = {name: set() for name in MEASURES}
    order: list[Span] = []
    stack = list(roots)
    while stack:
        span = stack.pop()
        order.append(span)
        stack.extend(span.children)
    for span in reversed(order):  # children before their parents
        for name, measure in MEASURES.items():
            seen = below[name]
            if any(id(c) in seen or measure(c) is not None for c in span.children):
                seen.add(id(span))
    return below


def own_stretches(span: Span) -> list[tuple[int, int]]:
    """The stretches of SPAN's time that no child covers (one empty stretch at its end when
    its children cover it all). A child that starts after SPAN ends (a message's consumer,
    which Zipkin and OpenTelemetry put under its producer) covers none of it."""
    clipped = ((max(c.start, span.start), min(c.end, span.end)) for c in span.children)
    cover = sorted((start, end) for start, end in clipped if start <= end)
    gaps, at = [], span.start
    for start, end in cover:
        if start > at:
            gaps.append((at, start))
        at = max(at, end)
    if at < span.end:
        gaps.append((at, span.end))
    return gaps or [(span.end, span.end)]


def uncovered(start: float, end: float, covered: list[tuple[float, float]]) -> list[Any]:
    """The stretches of START..END outside COVERED (sorted, disjoint), and COVERED with
    START..END added."""
    pieces, at = [], start
    for a, b in covered:
        if b <= at or a >= end:
            continue
        if a > at:
            pieces.append((at, a))
        at = max(at, b)
    if at < end:
        pieces.append((at, end))
    merged: list[tuple[float, float]] = []
    for a, b in sorted([*covered, (start, end)]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    covered[:] = merged
    return pieces
