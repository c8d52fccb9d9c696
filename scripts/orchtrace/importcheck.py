"""What `orchtrace import` holds its input and its output to, so that it never changes a value
without a word and never writes a trace that `orchtrace validate` rejects.

Input, the spans of an export (spans.read_spans, which already refuses a key that an object or
an attribute list repeats): within one trace, a span listed twice (its tokens would count
twice), a span that is its own parent or whose parents loop (it would become a second root, or
be lost), a span that ends before it starts (clock skew), a negative token count. Output, each
trace importers.to_traces makes: examined as `validate` examines a file, and refused on any
error. Each refusal is an ImportError_ that names the span or the trace, led by the code
`validate` gives the same fault (codes.py).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import orjson

from .examine import examine
from .importers import INPUT_TOKENS, OUTPUT_TOKENS, to_traces
from .spans import ImportError_, Span, integer, json_mapping, read_spans

TOKEN_KEYS = (*INPUT_TOKENS, *OUTPUT_TOKENS, "llm.token_count.total")
USAGE_KEY = "langfuse.observation.usage_details"


def import_traces(data: bytes, convention: str = "auto") -> tuple[list[dict[str, Any]], str]:
    """The traces of the export DATA (see importers.to_traces), its input and output checked."""
    spans = read_spans(data)
    check_spans(spans)
    traces, note = to_traces(spans, convention)
    check_traces(traces)
    return traces, note


def _negative_tokens(span: Span) -> Any:
    usage = json_mapping(span.attrs.get(USAGE_KEY))
    counts = [span.attrs.get(k) for k in TOKEN_KEYS] + list(usage.values())
    for raw in counts:
        n = raw if isinstance(raw, float) else integer(raw)
        if n is not None and n < 0:
            return raw
    return None


def check_spans(spans: list[Span]) -> None:
    """Refuse spans that would import as values the export does not hold (module docstring)."""
    by_trace: dict[str, dict[str, Span]] = defaultdict(dict)
    for span in spans:
        where = f"span {span.span_id} of trace {span.trace_id}"
        seen = by_trace[span.trace_id]
        if span.span_id in seen:
            raise ImportError_(
                f"duplicate-id: {where} is listed twice; its work and tokens would count twice"
            )
        seen[span.span_id] = span
        if span.parent_id == span.span_id:
            raise ImportError_(f"parent-cycle: {where} names itself as its parent")
        if span.end < span.start:
            raise ImportError_(
                f"time-backwards: {where} ends {(span.start - span.end) / 1e9:g} s before it "
                "starts (clocks out of step?)"
            )
        bad = _negative_tokens(span)
        if bad is not None:
            raise ImportError_(f"negative-value: {where} counts {bad} tokens; a count is 0 or more")
    for trace_id, by_id in by_trace.items():
        _check_parents(trace_id, by_id)


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
