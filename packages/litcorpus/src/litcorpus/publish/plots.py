"""The charts of stats/figures (matplotlib, SVG and PNG, byte-for-byte reproducible) and the
style every figure shares; figures.py says which are drawn, from what, and keeps them.

Colours come from Paul Tol's muted palette (nine colours that stay distinct under the common
colour-vision deficiencies, and on a dark page too), with grey for "Not applicable"; every
figure carries text labels, not colour alone. An SVG has a transparent background and a style
for readers who prefer a dark scheme (lighter text and lines, darker boxes); the PNG stays on
white.
"""

from __future__ import annotations

import io
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PALETTE = [
    "#332288", "#88CCEE", "#44AA99", "#117733", "#999933",
    "#DDCC77", "#CC6677", "#882255", "#AA4499",
]  # fmt: skip
NOT_APPLICABLE = "#BBBBBB"  # the colour of the value NA, whatever its position
STATE_STYLE = {"filled": "#0072B2", "sparse": "#88CCEE", "unexpected": "#CC79A7"}
EMPTY, EXPECTED = "#D55E00", "#999999"
ON_COLOUR = "#111111"  # text on a coloured mark, which the dark style leaves alone
# The dark style of an SVG: the colours matplotlib wrote for text, lines and boxes, and what
# they become when the reader prefers a dark scheme.
DARK = {
    "#000000": "#e6e8eb",
    "#333333": "#c9ced6",
    "#555555": "#b0b7c0",
    "#e8f1f8": "#16283a",
    "#fbede3": "#3a2416",
    "#eeeeee": "#2a2e35",
}


def colour(i: int, value: str) -> str:
    """The colour of the Ith value of a split (NA is always grey)."""
    return NOT_APPLICABLE if value == "NA" else PALETTE[i % len(PALETTE)]


@cache
def setup() -> None:
    """Set matplotlib up once, on the first figure that has to be drawn (importing it takes
    a second, which a run whose figures are all cached does not pay)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


def _dark_style() -> str:
    rules = " ".join(
        f'[style*="fill: {light}"] {{ fill: {dark} !important }} '
        f'[style*="stroke: {light}"] {{ stroke: {dark} !important }}'
        for light, dark in DARK.items()
    )
    text = DARK["#000000"]  # text matplotlib leaves black has no fill of its own
    return f"@media (prefers-color-scheme: dark) {{ text {{ fill: {text} }} {rules} }}"


def figure_files(fig: Figure) -> dict[str, bytes]:
    """FIG as the SVG (with the dark style) and PNG bytes every figure of the corpus has."""
    out = {}
    for ext, meta in (("svg", {"Date": None, "Creator": None}), ("png", {"Software": None})):
        buf = io.BytesIO()
        fig.savefig(
            buf, format=ext, metadata=meta, bbox_inches="tight", dpi=150, transparent=ext == "svg"
        )
        out[ext] = buf.getvalue()
    marker = b"</style>"
    assert out["svg"].count(marker) == 1, "matplotlib's SVG holds one style element"
    out["svg"] = out["svg"].replace(marker, f"\n{_dark_style()}\n".encode() + marker)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return out


def counts_grid(panels: list[list[Any]]) -> Figure:
    """PANELS: [axis label, [[value label, n], ...]] for each axis."""
    setup()
    import matplotlib.pyplot as plt

    ncols = 3 if len(panels) > 4 else 2
    nrows = -(-len(panels) // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 2.6 * nrows), squeeze=False)
    for ax, (title, bars) in zip(grid.flat, panels, strict=False):
        labels = [label for label, _ in bars][::-1]
        values = [n for _, n in bars][::-1]
        ax.barh(labels, values, color=STATE_STYLE["filled"])
        for y, n in enumerate(values):
            ax.text(n, y, f" {n}", va="center", fontsize=7)
        ax.margins(x=0.15)  # room for the largest count
        ax.set_title(title, fontsize=9, loc="left")
        ax.tick_params(axis="y", labelsize=7)
    for ax in list(grid.flat)[len(panels) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def gap_map(gap: dict[str, Any], labels: dict[str, list[str]]) -> Figure:
    """GAP: a gap table of stats.json; LABELS: its row and column labels."""
    setup()
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

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
                color="white" if state == "filled" else ON_COLOUR,
            )
    ax.set_xticks(range(len(cols)), labels["cols"], rotation=40, ha="right")
    ax.set_yticks(range(len(rows)), labels["rows"][::-1])
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


def coverage(gap: dict[str, Any], labels: dict[str, Any]) -> Figure:
    """Stacked bars: entries per row value, split by column value."""
    setup()
    import matplotlib.pyplot as plt

    rows, cols = gap["rows"], gap["cols"]
    grid = {(c["row"], c["col"]): c["count"] for c in gap["cells"]}
    fig, ax = plt.subplots(figsize=(6, 0.8 + 0.45 * len(rows)))
    row_labels = labels["rows"][::-1]
    left = [0] * len(rows)
    for i, col in enumerate(cols):
        values = [grid[(r, col)] for r in rows][::-1]
        ax.barh(row_labels, values, left=left, color=colour(i, col), label=labels["cols"][i])
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
    ax.margins(x=0.08)
    ax.set_title(gap["label"], fontsize=9, loc="left")
    ax.legend(  # beside the bars, never over them
        title=labels["cols_axis"],
        fontsize=7,
        title_fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        frameon=False,
    )
    return fig


def trend(t: dict[str, Any], labels: dict[str, Any]) -> Figure:
    """T: the trend of stats.json; LABELS: its column labels and the axis label."""
    setup()
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7, 3))
    years = [int(y) for y in t["rows"]]
    # One bar per year that has entries; a run of years without any is one break on the axis
    # (a wider gap, marked //), so that 1994 and 2001 stand apart without 80% of an empty axis.
    xs: list[float] = []
    breaks: list[float] = []
    for i, year in enumerate(years):
        if i and year - years[i - 1] > 1:
            breaks.append(xs[-1] + 0.9)
            xs.append(xs[-1] + 1.8)
        else:
            xs.append(xs[-1] + 1 if xs else 0.0)
    bottom = [0] * len(xs)
    for i, col in enumerate(t["cols"]):
        values = [row[i] for row in t["cells"]]
        ax.bar(xs, values, bottom=bottom, color=colour(i, col), label=labels["cols"][i], width=0.8)
        bottom = [a + b for a, b in zip(bottom, values, strict=True)]
    ax.set_xticks(xs, [str(y) for y in years], rotation=45 if len(years) > 10 else 0)
    for x in breaks:
        ax.text(
            x,
            0,
            "//",
            ha="center",
            va="center",
            fontsize=9,
            color="#555555",
            transform=ax.get_xaxis_transform(),
            clip_on=False,
        )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("entries")
    ax.set_title(f"Entries per {t['field']}, by {labels['by'].lower()}", fontsize=9, loc="left")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def scale_gap(scale: dict[str, Any]) -> Figure:
    setup()
    import matplotlib.pyplot as plt

    fields = scale["fields"]
    fig, grid = plt.subplots(1, len(fields), figsize=(4.5 * len(fields), 3.6), squeeze=False)
    for ax, name in zip(grid.flat, fields, strict=True):
        for i, reg in enumerate(scale["regimes"]):
            vals = reg["values"][name]
            ys = [v["value"] for v in vals]
            ax.scatter([i] * len(ys), ys, color=PALETTE[i % len(PALETTE)], s=36, zorder=3)
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
