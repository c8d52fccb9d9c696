"""A self-contained HTML view of one trace: a timeline with one lane per agent, the edges
between events and the metrics. No script, no external asset; every string is escaped."""

from __future__ import annotations

import heapq
from html import escape
from typing import Any

COLORS = {
    "decision": "#0072B2",
    "spawn": "#009E73",
    "despawn": "#999999",
    "step": "#56B4E9",
    "message": "#CC79A7",
    "tool_call": "#E69F00",
    "tool_result": "#E69F00",
    "return": "#009E73",
    "aggregate": "#0072B2",
    "human_intervention": "#000000",
    "safety_event": "#D55E00",
    "stop": "#D55E00",
}


MAX_DRAWN = 2_000  # events on the timeline: a view of more is neither readable nor small
MAX_NAMED = 200  # events named in the critical chain


def _chain_text(chain: list[str]) -> str:
    if len(chain) <= MAX_NAMED:
        return " -> ".join(chain)
    half = MAX_NAMED // 2
    skipped = len(chain) - 2 * half
    return f"{' -> '.join(chain[:half])} -> ({skipped:,} more) -> {' -> '.join(chain[-half:])}"


def render_html(label: str, trace: dict[str, Any], m: dict[str, Any]) -> str:
    events = trace["events"]
    note = ""
    if len(events) > MAX_DRAWN:  # the earliest events, in file order, and their agents
        first = heapq.nsmallest(MAX_DRAWN, range(len(events)), key=lambda i: events[i]["t"])
        events = [events[i] for i in sorted(first)]
        lanes = list(dict.fromkeys(e["agent"] for e in events))
        note = (
            f"<p>The timeline shows the first {MAX_DRAWN:,} of {len(trace['events']):,} events "
            "by start time; the metrics cover them all.</p>"
        )
    else:
        listed = [a["id"] for a in trace.get("agents", [])]
        lanes = list(dict.fromkeys(listed + [e["agent"] for e in events]))
    lane_of = {name: i for i, name in enumerate(lanes)}
    t_max = max([e.get("t_end", e["t"]) for e in events] + [1])
    width, lane_h, left = 900, 46, 110
    scale = (width - left - 20) / t_max
    pos = {}
    shapes = []
    for e in events:
        y = 30 + lane_of[e["agent"]] * lane_h
        x = left + e["t"] * scale
        w = max(6.0, (e.get("t_end", e["t"]) - e["t"]) * scale)
        pos[e["id"]] = (x + w / 2, y)
        tip = escape(
            f"{e['id']} {e['type']} by {e['agent']} at t={e['t']}"
            + (f" -> {e['target']}" if "target" in e else "")
        )
        shapes.append(
            f'<rect x="{x:.1f}" y="{y - 9}" width="{w:.1f}" height="18" rx="3" '
            f'fill="{COLORS.get(e["type"], "#555")}"><title>{tip}</title></rect>'
        )
    critical = set(zip(m["critical_chain"], m["critical_chain"][1:], strict=False))
    lines = []
    for edge in trace.get("edges", []):
        if edge["source"] not in pos or edge["target"] not in pos:
            continue  # an end not drawn
        (x1, y1), (x2, y2) = pos[edge["source"]], pos[edge["target"]]
        hot = (edge["source"], edge["target"]) in critical
        lines.append(
            f'<line x1="{x1:.1f}" y1="{y1}" x2="{x2:.1f}" y2="{y2}" '
            f'stroke="{"#D55E00" if hot else "#888"}" stroke-width="{2 if hot else 1}">'
            f"<title>{escape(edge['type'])}</title></line>"
        )
    labels = [
        f'<text x="8" y="{34 + i * lane_h}" font-size="12">{escape(a)}</text>'
        for i, a in enumerate(lanes)
    ]
    height = 40 + len(lanes) * lane_h
    rows = "".join(
        f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>"
        for k, v in m.items()
        if not isinstance(v, dict | list)
    )
    legend = " ".join(
        f'<span style="color:{c}">&#9632;</span> {escape(k)}' for k, c in COLORS.items()
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{escape(label)}: orchestration trace</title>
<style>body{{font:14px system-ui,sans-serif;margin:1.5rem;color:#1b1f24}}
table{{border-collapse:collapse}}th,td{{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}}
svg{{border:1px solid #ddd;max-width:100%;height:auto}}</style></head>
<body><main><h1>{escape(label)}</h1>
<p>Critical chain (red): {escape(_chain_text(m["critical_chain"]))}</p>{note}
<svg role="img" aria-label="Timeline of events per agent" viewBox="0 0 {width} {height}"
 width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">
{"".join(labels)}{"".join(lines)}{"".join(shapes)}</svg>
<p>{legend}</p>
<h2>Metrics</h2><table>{rows}</table>
</main></body></html>
"""
