"""The PRISMA flow diagrams of stats/figures: the whole screening flow and the flow since the
previous release (PRISMA 2020's update), as boxes and arrows in the shared style (plots.py)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from .plots import EMPTY, STATE_STYLE, setup

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def prisma_flow(p: dict[str, Any], reasons: dict[str, str]) -> Figure:
    """P: the flow of stats.json; REASONS: the label of each exclusion reason."""
    setup()
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    steps: list[tuple[str, int, dict[str, Any] | None]] = [
        ("Records identified", p["identified"], None)
    ]
    steps += [(s["label"], s["assessed"], s) for s in p["stages"]]
    steps.append(("Included in the corpus", p["included"], None))
    fig, ax = plt.subplots(figsize=(8, 1.3 * len(steps)))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, len(steps) * 1.3)
    ax.axis("off")
    for i, (label, n, stage) in enumerate(steps):
        y = (len(steps) - 1 - i) * 1.3 + 0.25
        ax.add_patch(
            FancyBboxPatch(
                (0.2, y),
                4,
                0.8,
                boxstyle="round,pad=0.02",
                facecolor="#E8F1F8",
                edgecolor=STATE_STYLE["filled"],
            )
        )
        ax.text(2.2, y + 0.4, f"{label}\nn = {n}", ha="center", va="center", fontsize=8)
        if i < len(steps) - 1:
            ax.annotate(
                "",
                xy=(2.2, y - 0.45),
                xytext=(2.2, y),
                arrowprops={"arrowstyle": "->", "color": "#333333"},
            )
        if stage is not None:
            listed = (
                "\n".join(f"{reasons.get(r, r)}: {k}" for r, k in stage["reasons"].items())
                or "none"
            )
            ax.add_patch(
                FancyBboxPatch(
                    (5.2, y - 0.15),
                    4.6,
                    1.1,
                    boxstyle="round,pad=0.02",
                    facecolor="#FBEDE3",
                    edgecolor=EMPTY,
                )
            )
            ax.text(
                5.35,
                y + 0.4,
                f"Excluded: {stage['excluded']}\n{listed}",
                ha="left",
                va="center",
                fontsize=6.5,
            )
            ax.annotate(
                "",
                xy=(5.2, y + 0.4),
                xytext=(4.2, y + 0.4),
                arrowprops={"arrowstyle": "->", "color": "#333333"},
            )
    return fig


def _box(ax: Any, x: float, y: float, w: float, text: str, tone: str = "flow") -> None:
    from matplotlib.patches import FancyBboxPatch

    face, edge = ("#E8F1F8", STATE_STYLE["filled"]) if tone == "flow" else ("#FBEDE3", EMPTY)
    if tone == "previous":
        face, edge = "#EEEEEE", "#555555"
    ax.add_patch(
        FancyBboxPatch((x, y), w, 0.8, boxstyle="round,pad=0.02", facecolor=face, edgecolor=edge)
    )
    ax.text(x + w / 2, y + 0.4, text, ha="center", va="center", fontsize=7.5)


def _arrow(ax: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "color": "#333333"})


def _lost(arm: dict[str, Any]) -> str:
    """', not retrieved: n' for an arm with reports sought but not found; else nothing."""
    return f", not retrieved: {arm['not_retrieved']}" if arm["not_retrieved"] else ""


def _carried(arm: dict[str, Any]) -> str:
    """' + k of earlier searches' for an arm that screens records found before its window."""
    return f" + {arm['carried']} of earlier searches" if arm["carried"] else ""


def prisma_update(u: dict[str, Any], reasons: dict[str, str]) -> Figure:
    """The PRISMA 2020 flow of an update: the previous release's studies, the records found
    since by logged searches and by other methods, and the total."""
    setup()
    import matplotlib.pyplot as plt

    s, o = u["searches"], u["other"]
    s_excluded = sum(st["excluded"] for st in s["stages"][1:])
    o_excluded = sum(st["excluded"] for st in o["stages"])
    fig, ax = plt.subplots(figsize=(9, 4.6))
    ax.set_xlim(0, 12)
    ax.set_ylim(0, 5.6)
    ax.axis("off")
    previous = f"Studies included in\nrelease {u['previous']['version']}\nn = "
    _box(ax, 0.2, 4.4, 3.3, previous + str(u["previous"]["studies"]), "previous")
    _box(ax, 4.1, 4.4, 3.6, f"Records from logged searches\nn = {s['identified']}{_carried(s)}")
    _box(ax, 8.3, 4.4, 3.5, f"Records found otherwise\nn = {o['identified']}{_carried(o)}")
    removed = s["duplicates"] + s["stages"][0]["excluded"]
    untitled = f", untitled: {s['unscreenable']}" if s["unscreenable"] else ""
    _box(ax, 4.1, 3.0, 3.6, f"Duplicates removed: {removed}{untitled}\nscreened: "
         f"{s['stages'][1]['assessed'] + s['not_retrieved']}", "excluded")  # fmt: skip
    listed = "; ".join(f"{reasons.get(r, r)} {k}" for st in s["stages"][1:]
                       for r, k in st["reasons"].items())  # fmt: skip
    # the reasons wrapped to the box's width, two lines at most
    listed = "\n".join(textwrap.wrap(listed or "none", 40, max_lines=2, placeholder=" ..."))
    _box(ax, 4.1, 1.6, 3.6, f"Excluded: {s_excluded}{_lost(s)}\n{listed}", "excluded")
    _box(ax, 8.3, 1.6, 3.5, f"Excluded: {o_excluded}{_lost(o)}", "excluded")
    new = f"New studies included\nn = {u['new_studies']} ({s['included']} + {o['included']})"
    _box(ax, 6.0, 0.2, 3.8, new)
    _box(ax, 0.2, 0.2, 3.3, f"Total studies included\nn = {u['total_studies']}")
    for start, end in (
        ((5.9, 4.4), (5.9, 3.85)),
        ((5.9, 3.0), (5.9, 2.45)),
        ((5.9, 1.6), (7.0, 1.05)),
        ((10.05, 4.4), (10.05, 2.45)),
        ((10.05, 1.6), (8.8, 1.05)),
        ((1.85, 4.4), (1.85, 1.05)),
        ((6.0, 0.6), (3.55, 0.6)),
    ):
        _arrow(ax, start, end)
    return fig
