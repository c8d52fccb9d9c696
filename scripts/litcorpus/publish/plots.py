"""Figures for stats/figures (matplotlib, SVG and PNG), byte-for-byte reproducible, and drawn
only when their content changes.

`figure_specs` says what each figure shows: its drawing function and the plain data it reads
(counts, cells and labels already resolved from the taxonomy). `build_figures` turns specs into
{name: {ext: bytes}}, taking a figure from the cache (a folder of files named by the hash of
that data, the drawing code and matplotlib's version) when it is there and drawing it
otherwise. Colours come from Paul Tol's muted palette (nine colours that stay distinct under
the common colour-vision deficiencies, and on a dark page too), with grey for "Not
applicable"; every figure carries text labels, not colour alone. An SVG has a transparent
background and a style for readers who prefer a dark scheme (lighter text and lines, darker
boxes); the PNG stays on white.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.taxonomy import Taxonomy
from .presentation import value_names

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


def _save(fig: Figure) -> dict[str, bytes]:
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


def figure_files(fig: Figure) -> dict[str, bytes]:
    """FIG as the SVG (with the dark style) and PNG bytes every figure of the corpus has."""
    return _save(fig)


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
    _box(ax, 4.1, 4.4, 3.6, f"Records from logged searches\nn = {s['identified']}")
    _box(ax, 8.3, 4.4, 3.5, f"Records found otherwise\nn = {o['identified']}")
    removed = s["duplicates"] + s["stages"][0]["excluded"]
    untitled = f", untitled: {s['unscreenable']}" if s["unscreenable"] else ""
    _box(ax, 4.1, 3.0, 3.6, f"Duplicates removed: {removed}{untitled}\nscreened: "
         f"{s['stages'][1]['assessed'] + s['not_retrieved']}", "excluded")  # fmt: skip
    listed = "; ".join(f"{reasons.get(r, r)} {k}" for st in s["stages"][1:]
                       for r, k in st["reasons"].items())  # fmt: skip
    _box(ax, 4.1, 1.6, 3.6, f"Excluded: {s_excluded}{_lost(s)}\n{listed or 'none'}"[:90],
         "excluded")  # fmt: skip
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


CONCEPT_TITLES = {  # the concept figures, by the reader part each is drawn from
    "concept-topologies": "Orchestration topologies, with example entries",
    "concept-credit": "Credit units from token to team, with the entries at each",
    "concept-subdecisions": "Orchestration sub-decisions O1 to O5, with the survey's anchors",
}


def figure_titles(stats: dict[str, Any], tax: Taxonomy) -> dict[str, str]:
    """A readable title (and alt text) for every figure build_figures makes."""
    titles = {
        f"counts-{k}": f"Entries per value of each axis ({tax.kinds[k].label.lower()} records)"
        for k in tax.kinds
    }
    for gap in stats["gaps"]:
        titles[f"gap-{gap['id']}"] = f"Gap map: {gap['label']}"
        titles[f"coverage-{gap['id']}"] = f"Coverage: {gap['label']}"
    titles.update(
        {
            "trend": "Entries per year, by category",
            "prisma": "Screening flow",
            "prisma-update": "Screening flow since the previous release (PRISMA 2020 update)",
            "scale-gap": "Reported team scale, industrial against academic (log scale)",
            **CONCEPT_TITLES,
        }
    )
    return titles


@dataclass(frozen=True, slots=True)
class FigureSpec:
    """One figure: its file name, how it is drawn, and the plain data the drawing reads."""

    name: str
    draw: Callable[..., Figure]
    args: tuple[Any, ...]

    def key(self) -> str:
        """What the figure's bytes depend on: the data, the drawing code, matplotlib."""
        digest = hashlib.sha256()
        code = _code_version(self.draw.__module__)
        for part in (self.name, self.draw.__name__, code, _mpl_version()):
            digest.update(part.encode() + b"\0")
        digest.update(json.dumps(self.args, sort_keys=True, ensure_ascii=False).encode())
        return digest.hexdigest()[:32]


@cache
def _code_version(module: str) -> str:
    """The hash of the drawing code: this module and the drawing function's own."""
    files = {Path(__file__), Path(getattr(sys.modules[module], "__file__", None) or __file__)}
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(files))).hexdigest()


@cache
def _mpl_version() -> str:
    from importlib import metadata  # 20 ms that the README, which draws nothing, need not pay

    return metadata.version("matplotlib")


def figure_specs(stats: dict[str, Any], tax: Taxonomy, reason_axis: str | None) -> list[FigureSpec]:
    """Every figure of stats/figures, with the data it shows."""
    specs = []
    for kind in tax.kinds:
        axes = tax.axes_for(kind)
        if axes:
            panels = [
                [a.label, [list(p) for p in zip(value_names(tax, a.id, list(stats["counts"][a.id])),
                                                stats["counts"][a.id].values(), strict=True)]]
                for a in axes
            ]  # fmt: skip
            specs.append(FigureSpec(f"counts-{kind}", counts_grid, (panels,)))
    for gap in stats["gaps"]:
        labels = {
            "rows": value_names(tax, gap["rows_axis"], gap["rows"]),
            "cols": value_names(tax, gap["cols_axis"], gap["cols"]),
            "cols_axis": tax.axes[gap["cols_axis"]].label,
        }
        specs.append(FigureSpec(f"gap-{gap['id']}", gap_map, (gap, labels)))
        specs.append(FigureSpec(f"coverage-{gap['id']}", coverage, (gap, labels)))
    if "trend" in stats:
        t = stats["trend"]
        labels = {"cols": value_names(tax, t["by"], t["cols"]), "by": tax.axes[t["by"]].label}
        specs.append(FigureSpec("trend", trend, (t, labels)))
    if stats["prisma"] and reason_axis:
        reasons = dict(zip(tax.axes[reason_axis].by_id,
                           value_names(tax, reason_axis, list(tax.axes[reason_axis].by_id)),
                           strict=True))  # fmt: skip
        specs.append(FigureSpec("prisma", prisma_flow, (stats["prisma"], reasons)))
        if stats.get("prisma_update"):
            update = stats["prisma_update"]
            specs.append(FigureSpec("prisma-update", prisma_update, (update, reasons)))
    if stats["scale"]["regimes"] and stats["scale"]["fields"]:
        specs.append(FigureSpec("scale-gap", scale_gap, (stats["scale"],)))
    if stats.get("reader"):
        specs += concept_specs(stats["reader"], tax)
    return specs


def concept_specs(reader: dict[str, Any], tax: Taxonomy) -> list[FigureSpec]:
    """The concept figures, from the reader part of stats.json."""
    from . import concepts

    names = reader["names"]
    specs = []
    if "topologies" in reader:
        t = reader["topologies"]
        axis = tax.axes[t["axis"]]
        rows = [
            {
                "label": axis.by_id[r["value"]].label,
                "description": axis.by_id[r["value"]].description,
                "shape": r["shape"],
                "count": r["count"],
                "examples": [names.get(k, k) for k in r["examples"]],
            }
            for r in t["rows"]
            if r["shape"]
        ]
        specs.append(FigureSpec("concept-topologies", concepts.topologies, (rows,)))
    if "credit" in reader:
        c = reader["credit"]
        axis = tax.axes[c["axis"]]
        rows = [
            {
                "label": axis.by_id[r["value"]].label,
                "description": axis.by_id[r["value"]].description,
                "count": r["count"],
                "estimated": r["estimated"],
            }
            for r in c["rows"]
        ]
        strict = c["rows"] and c["rows"][0]["estimated"] is not None
        specs.append(FigureSpec("concept-credit", concepts.credit_ladder, (rows, strict)))
    if "subdecisions" in reader:
        sub = reader["subdecisions"]
        axis = tax.axes[sub["axes"][0]]
        rows = [
            {
                "code": axis.code_of(r["value"]) or "",
                "label": axis.by_id[r["value"]].label,
                "learned": r["learned"],
                "designed": r["designed"],
                "anchors": [[names.get(a["key"], a["key"]), a["how"]] for a in r["anchors"]],
            }
            for r in sub["rows"]
        ]
        specs.append(FigureSpec("concept-subdecisions", concepts.subdecisions, (rows,)))
    return specs


FORMATS = ("svg", "png")


Figures = dict[str, dict[str, bytes]]  # name: {ext: bytes}
Index = dict[str, dict[str, Any]]  # name: {"key", "sha256": {ext: digest}}, as stats.json has it


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _previous(folder: Path | None) -> tuple[Path | None, Index]:
    """An earlier stats folder and the figure index its stats.json holds."""
    if folder is None:
        return None, {}
    try:
        index = json.loads((folder / "stats.json").read_text(encoding="utf-8")).get("figures")
    except (OSError, ValueError, AttributeError):
        return None, {}
    return folder, index if isinstance(index, dict) else {}


def _reuse(folder: Path, name: str, entry: Any, key: str) -> dict[str, bytes] | None:
    """The figure NAME of an earlier stats folder, when it shows the same data (KEY) and its
    files are as that build wrote them."""
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    try:
        files = {ext: (folder / "figures" / f"{name}.{ext}").read_bytes() for ext in FORMATS}
    except OSError:
        return None
    sums = entry.get("sha256") or {}
    return files if all(sums.get(ext) == _digest(data) for ext, data in files.items()) else None


def build_figures(
    specs: list[FigureSpec], cache: Path | None, previous: Path | None = None
) -> tuple[Figures, Index]:
    """Each figure's files and the index stats.json keeps of them. A figure comes from the
    earlier stats folder PREVIOUS, or else from CACHE, when its key is there (the same data,
    drawing code and matplotlib), and is drawn otherwise (then kept in CACHE)."""
    folder, earlier = _previous(previous)
    out: Figures = {}
    index: Index = {}
    for spec in sorted(specs, key=lambda s: s.name):
        key = spec.key()
        files = _reuse(folder, spec.name, earlier.get(spec.name), key) if folder else None
        if files is None and cache:
            try:
                files = {ext: (cache / f"{key}.{ext}").read_bytes() for ext in FORMATS}
            except OSError:
                files = None
        if files is None:
            files = _save(spec.draw(*spec.args))
            if cache:
                _keep(cache, key, files)
        out[spec.name] = files
        index[spec.name] = {"key": key, "sha256": {e: _digest(d) for e, d in files.items()}}
    return out, index


def _keep(cache: Path, key: str, files: dict[str, bytes]) -> None:
    """Store a drawn figure; a cache that cannot be written only costs time."""
    from safewrite.files import write_file

    try:
        cache.mkdir(parents=True, exist_ok=True)
        for ext, data in files.items():
            write_file(cache / f"{key}.{ext}", data)
    except Exception:
        pass
