"""The three concept figures (matplotlib), drawn from the reader part of stats.json: the
orchestration topologies, the credit ladder from token to team, and the five orchestration
sub-decisions with the survey figure's anchors.

Each function takes plain data (labels, counts and names already resolved) and returns a
figure; figures.py registers them with the others, so they are cached and reproducible alike.
"""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING, Any

from .plots import EMPTY, ON_COLOUR, PALETTE, STATE_STYLE, setup

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# Marks keep their colours in the dark style; text and lines use the greys it lightens, and
# text on a coloured mark uses ON_COLOUR, which it leaves dark.
NODE, LIGHT, EDGE, TEXT = STATE_STYLE["filled"], STATE_STYLE["sparse"], "#555555", "#333333"
LEAD, GATHER = PALETTE[5], PALETTE[2]  # a coordinator, and what gathers results


def _node(ax: Axes, x: float, y: float, r: float = 0.09, color: str = NODE) -> None:
    from matplotlib.patches import Circle

    ax.add_patch(Circle((x, y), r, facecolor=color, edgecolor="none", zorder=3))


def _edge(
    ax: Axes,
    a: tuple[float, float],
    b: tuple[float, float],
    arrow: bool = False,
    gap: tuple[float, float] = (0.1, 0.1),
) -> None:
    """A line from A to B that stops GAP short of each end (the nodes' radii)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    start = (a[0] + dx * gap[0] / length, a[1] + dy * gap[0] / length)
    end = (b[0] - dx * gap[1] / length, b[1] - dy * gap[1] / length)
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={"arrowstyle": "-|>" if arrow else "-", "color": EDGE, "lw": 0.9,
                    "shrinkA": 0, "shrinkB": 0, "mutation_scale": 8},
        zorder=2,
    )  # fmt: skip


def _shape(ax: Axes, shape: str | None) -> None:
    """Draw one topology in the unit square around (0.5, 0.55)."""
    cx, cy = 0.5, 0.55
    if shape == "star":  # one coordinator, workers around it
        _node(ax, cx, cy, 0.11, LEAD)
        for i in range(5):
            a = math.pi / 2 + 2 * math.pi * i / 5
            p = (cx + 0.32 * math.cos(a), cy + 0.32 * math.sin(a))
            _edge(ax, (cx, cy), p, arrow=True, gap=(0.12, 0.1))
            _node(ax, *p)
    elif shape == "cycle":  # planner, executor, critic in a loop
        points = [(cx + 0.3 * math.cos(a), cy + 0.3 * math.sin(a)) for a in (1.57, 3.67, 5.76)]
        for i, p in enumerate(points):
            _edge(ax, p, points[(i + 1) % 3], arrow=True, gap=(0.11, 0.11))
            _node(ax, *p, 0.1)
            ax.text(*p, "PEC"[i], ha="center", va="center", color="white", fontsize=8, zorder=4)
    elif shape == "mesh":  # peers that all talk to one another
        points = [(cx + 0.3 * math.cos(a), cy + 0.3 * math.sin(a)) for a in (0.79, 2.36, 3.93, 5.5)]
        for i, p in enumerate(points):
            for q in points[i + 1 :]:
                _edge(ax, p, q)
        for p in points:
            _node(ax, *p)
    elif shape == "fan":  # one agent spawns many in parallel and gathers their results
        top, bottom = (cx, cy + 0.32), (cx, cy - 0.34)
        for i in range(7):
            p = (0.14 + i * 0.12, cy)
            _edge(ax, top, p, arrow=True, gap=(0.1, 0.055))
            _edge(ax, p, bottom, arrow=True, gap=(0.055, 0.08))
            _node(ax, *p, 0.045)
        _node(ax, *top, 0.09, LEAD)
        _node(ax, *bottom, 0.07, GATHER)
    elif shape == "tree":  # managers over managers over workers
        root = (cx, cy + 0.32)
        mids = [(cx - 0.22, cy), (cx + 0.22, cy)]
        _node(ax, *root, 0.09, LEAD)
        for m in mids:
            _edge(ax, root, m, arrow=True, gap=(0.1, 0.09))
            for dx in (-0.11, 0.11):
                leaf = (m[0] + dx, cy - 0.3)
                _edge(ax, m, leaf, arrow=True, gap=(0.09, 0.07))
                _node(ax, *leaf, 0.06)
            _node(ax, *m, 0.08, LIGHT)
    elif shape == "frame":  # a harness that hosts the agent and its tools
        from matplotlib.patches import FancyBboxPatch

        ax.add_patch(
            FancyBboxPatch(
                (0.12, cy - 0.34),
                0.76,
                0.68,
                boxstyle="round,pad=0.02",
                facecolor="none",
                edgecolor=LEAD,
                linewidth=1.4,
                linestyle="--",
            )
        )
        _node(ax, cx, cy + 0.1, 0.1)
        for x in (0.3, 0.5, 0.7):
            _edge(ax, (cx, cy + 0.1), (x, cy - 0.2), arrow=True, gap=(0.11, 0.06))
            _node(ax, x, cy - 0.2, 0.05, GATHER)


def topologies(rows: list[dict[str, Any]]) -> Figure:
    """ROWS: {label, description, shape, count, examples (names)} per topology."""
    setup()
    import matplotlib.pyplot as plt

    ncols = 3
    nrows = max(1, -(-len(rows) // ncols))
    fig, grid = plt.subplots(nrows, ncols, figsize=(3.1 * ncols, 2.9 * nrows), squeeze=False)
    for ax, row in zip(grid.flat, rows, strict=False):
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.3, 1.0)
        ax.set_aspect("equal")
        ax.axis("off")
        _shape(ax, row["shape"])
        ax.set_title(f"{row['label']} ({row['count']})", fontsize=9, loc="left")
        text = textwrap.fill(row["description"], 42)
        if row["examples"]:
            text += "\n" + textwrap.fill("e.g. " + "; ".join(row["examples"]), 42)
        ax.text(0, 0.12, text, va="top", ha="left", fontsize=6.5, color=TEXT)
    for ax in list(grid.flat)[len(rows) :]:
        ax.set_visible(False)
    fig.suptitle(
        "Orchestration topologies: how the agents are arranged (entries in brackets)",
        fontsize=10,
        x=0.01,
        ha="left",
    )
    fig.tight_layout()
    return fig


def credit_ladder(rows: list[dict[str, Any]], strictness: bool) -> Figure:
    """ROWS, finest unit first: {label, description, count, estimated}. Drawn bottom (finest) to
    top (coarsest), each unit with its entries and, when STRICTNESS, the strict ones."""
    setup()
    import matplotlib.pyplot as plt

    fig, (names, bars) = plt.subplots(
        1, 2, figsize=(8.6, 0.55 * len(rows) + 1.0), gridspec_kw={"width_ratios": [1.5, 1]}
    )
    peak = max([r["count"] for r in rows] + [1])
    for y, row in enumerate(rows):
        width = 0.35 + 0.65 * (y + 1) / len(rows)  # wider as the unit grows coarser
        names.barh(y, width, left=(1 - width) / 2, color=LIGHT, height=0.8)
        names.text(
            0.5, y + 0.1, row["label"], ha="center", va="center", fontsize=8.5, color=ON_COLOUR
        )
        names.text(
            0.5, y - 0.2, row["description"], ha="center", va="center", fontsize=6, color=ON_COLOUR
        )
        bars.barh(y, row["count"], color=LIGHT, height=0.6)
        if strictness:
            bars.barh(y, row["estimated"] or 0, color=NODE, height=0.6)
        word = f"{row['count']}" + (
            f" ({row['estimated']} strict)" if strictness and row["count"] else ""
        )
        bars.text(row["count"] + peak * 0.02, y, word, va="center", fontsize=7)
    names.set_xlim(0, 1)
    names.axis("off")
    names.set_title("Credit units, finest at the bottom", fontsize=9, loc="left")
    bars.set_yticks([])
    bars.set_xlim(0, peak * 1.45)
    bars.spines["left"].set_visible(False)
    bars.set_xlabel("entries whose finest credit-bearing unit it is", fontsize=7)
    bars.set_title(
        "Entries" + (": light = signal only, dark = explicit estimator" if strictness else ""),
        fontsize=8,
        loc="left",
    )
    for ax in (names, bars):
        ax.set_ylim(-0.6, len(rows) - 0.4)
    fig.tight_layout()
    return fig


def subdecisions(rows: list[dict[str, Any]]) -> Figure:
    """ROWS in episode order: {code, label, description, learned, designed, anchors: [[name,
    how], ...]}."""
    setup()
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    tallest = max([len(r["anchors"]) for r in rows] + [2])
    bottom = -0.6 - 0.14 * tallest
    fig, ax = plt.subplots(figsize=(1.95 * len(rows) + 0.3, 1.1 * (1.0 - bottom) + 0.3))
    ax.set_xlim(-0.1, len(rows) - 0.1)
    ax.set_ylim(bottom, 1.0)
    ax.axis("off")
    for i, row in enumerate(rows):
        untouched = not row["learned"] and not row["designed"]
        ax.add_patch(
            FancyBboxPatch(
                (i + 0.02, 0.05),
                0.76,
                0.75,
                boxstyle="round,pad=0.03",
                facecolor="none" if untouched else LIGHT,
                edgecolor=EMPTY if untouched else NODE,
                linewidth=1.2,
                linestyle="--" if untouched else "-",
            )
        )
        head = f"{row['code']}\n{textwrap.fill(row['label'], 14)}"
        ax.text(
            i + 0.4, 0.43, head, ha="center", va="center", fontsize=8.5,
            color=TEXT if untouched else ON_COLOUR,
        )  # fmt: skip
        if i + 1 < len(rows):
            _edge(ax, (i + 0.82, 0.43), (i + 0.98, 0.43), arrow=True, gap=(0, 0))
        counts = f"learned by {row['learned']}\ndesigned by {row['designed']}"
        ax.text(i + 0.4, -0.05, counts, ha="center", va="top", fontsize=7)
        anchors = [f"{name} ({how})" for name, how in row["anchors"]]
        lines = ["survey anchors:", *anchors] if anchors else ["no survey anchor"]
        if untouched:
            lines.append("no entry learns\nor designs it")
        ax.text(
            i + 0.4,
            -0.42,
            "\n".join(lines),
            ha="center",
            va="top",
            fontsize=6.5,
            color=TEXT if anchors else EDGE,
        )
    ax.set_title(
        "Orchestration sub-decisions O1 to O5: entries that learn and that design each",
        fontsize=9,
        loc="left",
    )
    fig.tight_layout()
    return fig
