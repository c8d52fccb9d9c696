"""Figures for stats/figures (matplotlib, SVG and PNG), byte-for-byte reproducible.

Reads the stats dict and the taxonomy; `build_figures` returns {name: {ext: bytes}}. Colours
come from the Okabe-Ito palette, which stays distinct under the common colour-vision
deficiencies; every figure carries text labels, not colour alone.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import partial
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from .taxonomy import Taxonomy

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
STATE_STYLE = {"filled": "#0072B2", "sparse": "#56B4E9", "unexpected": "#CC79A7"}
EMPTY, EXPECTED = "#D55E00", "#999999"

plt.rcParams.update(
    {
        "svg.hashsalt": "litcorpus",
        "svg.fonttype": "none",
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "figure.dpi": 100,
    }
)


def _save(fig: Figure) -> dict[str, bytes]:
    out = {}
    for ext, meta in (("svg", {"Date": None, "Creator": None}), ("png", {"Software": None})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, metadata=meta, bbox_inches="tight", dpi=150)
        out[ext] = buf.getvalue()
    plt.close(fig)
    return out


def _label(tax: Taxonomy, axis: str, value: str) -> str:
    a = tax.axes.get(axis)
    v = a.by_id.get(value) if a else None
    code = a.code_of(value) if a else None
    name = v.label if v else value
    return f"{code} {name}" if code else name


def counts_grid(stats: dict[str, Any], tax: Taxonomy, kind: str) -> Figure:
    axes = [a for a in tax.axes_for(kind)]
    ncols = 3 if len(axes) > 4 else 2
    nrows = -(-len(axes) // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 2.6 * nrows), squeeze=False)
    for ax, axis in zip(grid.flat, axes, strict=False):
        counts = stats["counts"][axis.id]
        labels = [_label(tax, axis.id, v) for v in counts][::-1]
        values = list(counts.values())[::-1]
        ax.barh(labels, values, color=OKABE_ITO[0])
        for y, n in enumerate(values):
            ax.text(n, y, f" {n}", va="center", fontsize=7)
        ax.set_title(axis.label, fontsize=9, loc="left")
        ax.tick_params(axis="y", labelsize=7)
    for ax in list(grid.flat)[len(axes) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def gap_map(gap: dict[str, Any], tax: Taxonomy) -> Figure:
    rows, cols = gap["rows"], gap["cols"]
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(cols), 0.9 + 0.45 * len(rows)))
    peak = max([c["count"] for c in gap["cells"]] + [1])
    for cell in gap["cells"]:
        x, y = cols.index(cell["col"]), len(rows) - 1 - rows.index(cell["row"])
        state = cell["state"]
        if state == "expected_empty":
            ax.add_patch(
                Rectangle(
                    (x - 0.35, y - 0.35),
                    0.7,
                    0.7,
                    facecolor="none",
                    edgecolor=EXPECTED,
                    hatch="///",
                    linewidth=0.8,
                )
            )
        elif state == "empty":
            ax.scatter([x], [y], marker="x", s=40, color=EMPTY, linewidths=1.5)
        else:
            size = 80 + 900 * cell["count"] / peak
            ax.scatter([x], [y], s=size, color=STATE_STYLE[state], alpha=0.85, edgecolors="white")
            ax.text(
                x,
                y,
                str(cell["count"]),
                ha="center",
                va="center",
                fontsize=7,
                color="white" if state == "filled" else "black",
            )
    ax.set_xticks(
        range(len(cols)), [_label(tax, gap["cols_axis"], c) for c in cols], rotation=40, ha="right"
    )
    ax.set_yticks(range(len(rows)), [_label(tax, gap["rows_axis"], r) for r in rows][::-1])
    ax.set_xlim(-0.6, len(cols) - 0.4)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_title(gap["label"], fontsize=9, loc="left")
    handles = [
        ax.scatter([], [], s=60, color=STATE_STYLE["filled"], label="filled"),
        ax.scatter(
            [], [], s=60, color=STATE_STYLE["sparse"], label=f"sparse (<= {gap['sparse_at']})"
        ),
        ax.scatter([], [], marker="x", s=40, color=EMPTY, label="empty: unexplored"),
        Rectangle(
            (0, 0), 1, 1, facecolor="none", edgecolor=EXPECTED, hatch="///", label="does not apply"
        ),
    ]
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7, frameon=False
    )
    return fig


def coverage(gap: dict[str, Any], tax: Taxonomy) -> Figure:
    """Stacked bars: entries per row value, split by column value."""
    rows, cols = gap["rows"], gap["cols"]
    grid = {(c["row"], c["col"]): c["count"] for c in gap["cells"]}
    fig, ax = plt.subplots(figsize=(6, 0.8 + 0.45 * len(rows)))
    labels = [_label(tax, gap["rows_axis"], r) for r in rows][::-1]
    left = [0] * len(rows)
    for i, col in enumerate(cols):
        values = [grid[(r, col)] for r in rows][::-1]
        ax.barh(
            labels,
            values,
            left=left,
            color=OKABE_ITO[i % len(OKABE_ITO)],
            label=_label(tax, gap["cols_axis"], col),
        )
        left = [a + b for a, b in zip(left, values, strict=True)]
    for y, total in enumerate(left):
        ax.text(
            total,
            y,
            f" {total}" if total else "  none",
            va="center",
            fontsize=7,
            color="black" if total else EMPTY,
            fontweight="normal" if total else "bold",
        )
    ax.set_xlabel("entries")
    ax.set_title(gap["label"], fontsize=9, loc="left")
    ax.legend(
        title=tax.axes[gap["cols_axis"]].label,
        fontsize=7,
        title_fontsize=7,
        loc="lower right",
        frameon=False,
    )
    return fig


def trend(stats: dict[str, Any], tax: Taxonomy) -> Figure:
    t = stats["trend"]
    fig, ax = plt.subplots(figsize=(7, 3))
    xs = [str(y) for y in t["rows"]]
    bottom = [0] * len(xs)
    for i, col in enumerate(t["cols"]):
        values = [row[i] for row in t["cells"]]
        ax.bar(
            xs,
            values,
            bottom=bottom,
            color=OKABE_ITO[i % len(OKABE_ITO)],
            label=_label(tax, t["by"], col),
        )
        bottom = [a + b for a, b in zip(bottom, values, strict=True)]
    ax.set_ylabel("entries")
    ax.set_title(
        f"Entries per {t['field']}, by {tax.axes[t['by']].label.lower()}", fontsize=9, loc="left"
    )
    ax.legend(fontsize=7, frameon=False)
    return fig


def prisma_flow(stats: dict[str, Any], tax: Taxonomy, reason_axis: str) -> Figure:
    p = stats["prisma"]
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
                edgecolor=OKABE_ITO[0],
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
            reasons = (
                "\n".join(
                    f"{_label(tax, reason_axis, r)}: {k}" for r, k in stage["reasons"].items()
                )
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
                f"Excluded: {stage['excluded']}\n{reasons}",
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


def scale_gap(stats: dict[str, Any]) -> Figure:
    scale = stats["scale"]
    fields = scale["fields"]
    fig, grid = plt.subplots(1, len(fields), figsize=(4.5 * len(fields), 3.6), squeeze=False)
    for ax, name in zip(grid.flat, fields, strict=True):
        for i, reg in enumerate(scale["regimes"]):
            vals = reg["values"][name]
            ys = [v["value"] for v in vals]
            ax.scatter([i] * len(ys), ys, color=OKABE_ITO[i % len(OKABE_ITO)], s=36, zorder=3)
            groups: dict[int, list[str]] = {}
            for v in vals:
                groups.setdefault(v["value"], []).append(v["key"])
            for value, keys in groups.items():
                text = ", ".join(keys) if len(keys) <= 2 else f"{keys[0]} +{len(keys) - 1} more"
                ax.annotate(
                    f"{value}: {text}",
                    (i, value),
                    xytext=(6, 0),
                    textcoords="offset points",
                    fontsize=6.5,
                    va="center",
                )
            ax.text(
                i,
                0.8,
                f"{reg['summary'][name]['reporting']} of {reg['entries']} report",
                ha="center",
                fontsize=7,
            )
        ax.set_yscale("log")
        ax.set_ylim(0.6, 10_000)
        ax.set_xticks(range(len(scale["regimes"])), [r["label"] for r in scale["regimes"]])
        ax.set_xlim(-0.6, len(scale["regimes"]) - 0.2)
        ax.set_title(f"{name} (log scale)", fontsize=9, loc="left")
    fig.tight_layout()
    return fig


def figure_titles(stats: dict[str, Any], tax: Taxonomy) -> dict[str, str]:
    """A readable title (and alt text) for every figure build_figures makes."""
    titles = {
        f"counts-{k}": f"Entries per value of each axis ({tax.kinds[k].label.lower()}s)"
        for k in tax.kinds
    }
    for gap in stats["gaps"]:
        titles[f"gap-{gap['id']}"] = f"Gap map: {gap['label']}"
        titles[f"coverage-{gap['id']}"] = f"Coverage: {gap['label']}"
    titles.update(
        {
            "trend": "Entries per year, by category",
            "prisma": "Screening flow",
            "scale-gap": "Reported team scale, industrial against academic (log scale)",
        }
    )
    return titles


def build_figures(
    stats: dict[str, Any], tax: Taxonomy, reason_axis: str | None
) -> dict[str, dict[str, bytes]]:
    makers: dict[str, Callable[[], Figure]] = {}
    for kind in tax.kinds:
        if tax.axes_for(kind):
            makers[f"counts-{kind}"] = partial(counts_grid, stats, tax, kind)
    for gap in stats["gaps"]:
        makers[f"gap-{gap['id']}"] = partial(gap_map, gap, tax)
        makers[f"coverage-{gap['id']}"] = partial(coverage, gap, tax)
    if "trend" in stats:
        makers["trend"] = partial(trend, stats, tax)
    if stats["prisma"] and reason_axis:
        makers["prisma"] = partial(prisma_flow, stats, tax, reason_axis)
    if stats["scale"]["regimes"] and stats["scale"]["fields"]:
        makers["scale-gap"] = partial(scale_gap, stats)
    return {name: _save(make()) for name, make in makers.items()}
