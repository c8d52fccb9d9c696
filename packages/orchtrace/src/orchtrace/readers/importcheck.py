"""What `orchtrace import` holds its input and its output to, so that it never changes a value
without a word and never writes a trace that `orchtrace validate` rejects.

Input, the spans of an export (spanfiles.read_spans, which already refuses a key that an object or
an attribute list repeats): within one trace, a span id listed twice for different spans (which is
right cannot be told; copies of one span, and the start and end copies a console exporter writes,
are read once), a span that is its own parent or whose parents loop (it would become a second root,
or be lost), a span that ends before it starts (clock skew), a negative token count. A span with no
end (a crashed or still running run's) ends with its last descendant, with a warning that names it.
Output, each trace importers.to_traces makes: examined as `validate` examines a file, and refused on
any error. Each refusal is an ImportError_ that names the span or the trace, led by the code
`validate` gives the same fault (codes.py).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from ..core.trace import read_inputs
from ..measures.examine import examine
from .beside import BELOW, BESIDE
from .importers import INPUT_TOKENS, OUTPUT_TOKENS, to_traces
from .spanfiles import read_spans
from .spans import ImportError_, Span, integer, json_mapping

TOKEN_KEYS = (*INPUT_TOKENS, *OUTPUT_TOKENS, "llm.token_count.total")
USAGE_KEY = "langfuse.observation.usage_details"


def import_traces(
    data: bytes, convention: str = "auto", folder: Path | None = None
) -> tuple[list[dict[str, Any]], str]:
    """The traces of the export DATA (see importers.to_traces), its input and output checked,
    and a note on what was recognised and on the spans read with a warning. FOLDER is where
    the export came from: the sub-trajectories an ATIF trajectory names are read there."""
    with beside(folder):
        spans, warnings = settle_spans(read_spans(data))
    traces, note = to_traces(spans, convention)
    check_traces(traces)
    return traces, "; ".join([*([note] if note else []), *warnings])


@contextmanager
def beside(folder: Path | None) -> Iterator[None]:
    """Within it, the files that an export names beside it (an ATIF trajectory's
    sub-trajectories, a Claude Code session's sub-agents) are read from FOLDER (None: none)."""
    token = BESIDE.set(None if folder is None else partial(_beside, folder))
    below = BELOW.set(None if folder is None else partial(_below, folder))
    try:
        yield
    finally:
        BESIDE.reset(token)
        BELOW.reset(below)


def _beside(folder: Path, name: str) -> bytes | None:
    """The file NAME in FOLDER, read as orchtrace reads any input; None if NAME is not a
    plain file name there (a path elsewhere is not followed) or cannot be read."""
    if name in ("", ".", "..") or Path(name).name != name or "\\" in name:
        return None
    ((_, text, failed),) = read_inputs(folder / name, lines=False)
    return None if failed is not None else text


def _below(folder: Path, name: str) -> bytes | None:
    """The file at the relative path NAME under FOLDER (parts plain names, no way out of
    FOLDER, links included), read as any input; None if there is none or it cannot be read."""
    parts = name.split("/")
    if "\\" in name or any(p in ("", ".", "..") for p in parts):
        return None
    path = folder.joinpath(*parts)
    try:
        path.resolve().relative_to(folder.resolve())
    except (OSError, ValueError):
        return None
    if not path.is_file():
        return None
    ((_, text, failed),) = read_inputs(path, lines=False)
    return None if failed is not None else text


def _negative_tokens(span: Span) -> Any:
    usage = json_mapping(span.attrs.get(USAGE_KEY))
    counts = [span.attrs.get(k) for k in TOKEN_KEYS] + list(usage.values())
    for raw in counts:
        n = raw if isinstance(raw, float) else integer(raw)
        if n is not None and n < 0:
            return raw
    return None


def _copies(first: Span, other: Span) -> Span | None:
    """The one span that two listings of a span id are, if they are one: identical copies,
    or the copy a console exporter writes at a span's start (no end, the attributes known
    then) and the one it writes at its end."""
    if first.same_as(other):
        return first
    started, whole = (first, other) if not first.ended else (other, first)
    agree = all(
        getattr(started, k) == getattr(whole, k)
        for k in ("trace_id", "span_id", "parent_id", "name", "start", "service")
    )
    known = all(whole.attrs.get(k, object()) == v for k, v in started.attrs.items())
    return whole if not started.ended and whole.ended and agree and known else None


def _unique(spans: list[Span]) -> tuple[list[Span], list[str]]:
    """SPANS with each span id of a trace once: copies read once (with a note), different
    spans under one id refused, naming both."""
    seen: dict[tuple[str, str], int] = {}
    out: list[Span] = []
    notes: Counter[str] = Counter()
    for span in spans:
        key = (span.trace_id, span.span_id)
        if key not in seen:
            seen[key] = len(out)
            out.append(span)
            continue
        first = out[seen[key]]
        kept = _copies(first, span)
        if kept is None:
            of = f" of trace {span.trace_id}" if span.trace_id else ""
            raise ImportError_(
                f"duplicate-id: span {span.span_id}{of} is listed twice with different "
                f"values, at {first.where or 'one place'} ({first.name}, {_when(first)}) and "
                f"at {span.where or 'another'} ({span.name}, {_when(span)}); which is right "
                "cannot be told"
            )
        out[seen[key]] = kept
        notes[span.span_id] += 1
    warnings = [
        f"span {sid} is listed {n + 1} times, as one span: read once" for sid, n in notes.items()
    ]
    return out, warnings


def _when(span: Span) -> str:
    start = f"starts {span.start}"
    return f"{start}, no end" if not span.ended else f"{start}, ends {span.end} (ns)"


def _end_unended(spans: list[Span]) -> list[str]:
    """Give each span with no end the end of its last descendant (its start when it has
    none), so that it spans what it holds; one warning names each."""
    children: dict[tuple[str, str], list[Span]] = defaultdict(list)
    for span in spans:
        if span.parent_id and span.parent_id != span.span_id:
            children[(span.trace_id, span.parent_id)].append(span)
    latest: dict[int, int] = {}  # id(span): the latest end of it and all below it
    warnings = []
    for root in spans:
        if id(root) in latest:
            continue
        stack: list[tuple[Span, bool]] = [(root, False)]
        while stack:  # after the loop check: parents do not loop
            span, done = stack.pop()
            below = children[(span.trace_id, span.span_id)]
            if not done:
                stack.append((span, True))
                stack.extend((c, False) for c in below if id(c) not in latest)
                continue
            last = max((latest[id(c)] for c in below), default=span.start)
            if not span.ended:
                span.end = max(span.start, last)
                warnings.append(
                    f"span {span.span_id} ({span.name}) has no end: it ends with its last "
                    f"descendant, {(span.end - span.start) / 1e9:g} s after its start"
                )
            latest[id(span)] = max(span.end, last)
    return warnings


def settle_spans(spans: list[Span]) -> tuple[list[Span], list[str]]:
    """SPANS as the traces are made of them, and warnings: each span id once (see _unique),
    each span with an end (see _end_unended); anything that would import as values the export
    does not hold is refused (module docstring)."""
    spans, warnings = _unique(spans)
    by_trace: dict[str, dict[str, Span]] = defaultdict(dict)
    for span in spans:
        by_trace[span.trace_id][span.span_id] = span
        where = f"span {span.span_id} of trace {span.trace_id}"
        if span.parent_id == span.span_id:
            raise ImportError_(f"parent-cycle: {where} names itself as its parent")
        if span.ended and span.end < span.start:
            raise ImportError_(
                f"time-backwards: {where} ends {(span.start - span.end) / 1e9:g} s before it "
                "starts (clocks out of step?)"
            )
        bad = _negative_tokens(span)
        if bad is not None:
            raise ImportError_(f"negative-value: {where} counts {bad} tokens; a count is 0 or more")
    for trace_id, by_id in by_trace.items():
        _check_parents(trace_id, by_id)
        orphans = [s for s in by_id.values() if s.parent_id and s.parent_id not in by_id]
        if orphans:  # a partial export: the run's root is often kept by another service
            first = orphans[0]
            warnings.append(
                f"{len(orphans)} span(s) of trace {trace_id} name a parent the export does not "
                f"hold (first: span {first.span_id}, parent {first.parent_id}); each is read as "
                "a root"
            )
    return spans, warnings + _end_unended(spans)


def _check_parents(trace_id: str, by_id: dict[str, Span]) -> None:
    """Refuse parent links that loop (a span's parents never reach a root)."""
    done: set[str] = set()
    for start in by_id:
        path: list[str] = []
        on_path: set[str] = set()
        at: str | None = start
        while at is not None and at in by_id and at not in done:
            if at in on_path:
                loop = " -> ".join([*path[path.index(at) :], at])
                of = f" (trace {trace_id})" if trace_id else ""
                raise ImportError_(f"parent-cycle: the spans' parent links loop: {loop}{of}")
            path.append(at)
            on_path.add(at)
            at = by_id[at].parent_id
        done.update(path)


def check_traces(traces: list[dict[str, Any]]) -> None:
    """Refuse a trace that `orchtrace validate` would reject, naming its first error."""
    for trace in traces:
        label = f"trace {trace['trace_id']}"
        try:
            text: bytes | str = orjson.dumps(trace)
        except TypeError:  # an integer beyond 64 bits: validate reports it
            text = json.dumps(trace)
        errors = [p for p in examine(text, label).problems if p.severity == "error"]
        if errors:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise ImportError_(
                f"{first.code}: the {label} it makes would not validate: {first.pointer}: "
                f"{first.message}{more}"
            )
