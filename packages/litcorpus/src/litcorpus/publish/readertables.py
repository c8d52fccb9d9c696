"""The reader tables as citable tables: the topology cheat sheet, the reward families, the
benchmark table and the sparsity signals (analysis.reader computes them), each entry named by
its short name."""

from __future__ import annotations

from typing import Any

from ..model.taxonomy import Taxonomy
from .citable import Table
from .presentation import value_name


def reader_tables(reader: dict[str, Any], tax: Taxonomy) -> list[Table]:
    """The reader tables: the topology cheat sheet, reward families, the benchmark table and
    the sparsity signals, each entry named by its short name."""
    names = reader["names"]

    def named(keys: list[str]) -> str:  # bylines hold commas: names part on semicolons
        return "; ".join(names.get(k, k) for k in keys)

    def labels(axis: str, values: list[str]) -> str:
        return ", ".join(value_name(tax, axis, v) for v in values)

    out = []
    if "topologies" in reader:
        t = reader["topologies"]
        out.append(
            Table(
                "reader-topologies",
                f"{tax.axes[t['axis']].label} cheat sheet",
                ["topology", "what it is", "entries", "examples"],
                [
                    [
                        value_name(tax, t["axis"], r["value"]),
                        tax.axes[t["axis"]].by_id[r["value"]].description,
                        r["count"],
                        named(r["examples"]),
                    ]
                    for r in t["rows"]
                ],
                "Examples: core entries first, then the newest.",
                "llrl",
            )
        )
    if "families" in reader:
        f = reader["families"]
        credit = f["credit_axis"]
        out.append(
            Table(
                "reader-reward-families",
                f"{tax.axes[f['axis']].label} families with their typical "
                f"{tax.axes[credit].label.lower() if credit else 'credit unit'}",
                ["family", "values", "entries", "typical credit unit", "examples"],
                [
                    [
                        f"{r['code']} {r['label']}",
                        ", ".join(tax.axes[f["axis"]].by_id[v].label for v in r["values"]),
                        r["count"],
                        f"{labels(credit, r['typical'])} ({r['typical_count']} of {r['count']})"
                        if r["typical"] and credit
                        else "none",
                        named(r["examples"]),
                    ]
                    for r in f["rows"]
                ],
                "Typical: the commonest credit unit among the family's entries, with how many "
                "of them carry it (every unit is named on a tie; not applicable is left out). "
                "Examples: core entries first, then the newest.",
                "llrll",
            )
        )
    if "benchmarks" in reader:
        b = reader["benchmarks"]
        header = [
            tax.axes[b["group_axis"]].label.lower() if b["group_axis"] else "group",
            "entry",
            "multi-agent-native",
            *("scores" if i == 0 else "scores in part" for i in range(len(b["measures_axes"]))),
        ]
        out.append(
            Table(
                "reader-benchmarks",
                "What each benchmark measures, and whether it is multi-agent-native",
                header,
                [
                    [
                        value_name(tax, b["group_axis"], r["group"]) if r["group"] else "",
                        names.get(r["key"], r["key"]),
                        value_name(tax, b["multiagent_axis"], r["multiagent"])
                        if r["multiagent"]
                        else "",
                        *(
                            labels(a, vals) or "none"
                            for a, vals in zip(b["measures_axes"], r["measures"], strict=True)
                        ),
                    ]
                    for r in b["rows"]
                ],
                "Multi-agent-native: the benchmark runs several LLM agents per task and scores "
                "them together; partial: a second LLM party takes part but one agent is scored.",
                "l" * len(header),
            )
        )
    if "sparsity" in reader:

        def counted(axis: str, pairs: list[list[Any]]) -> str:
            return ", ".join(f"{value_name(tax, axis, v)} ({n})" for v, n in pairs) or "none"

        out.append(
            Table(
                "reader-sparsity",
                "The commonest and rarest tags per axis",
                ["axis", "commonest", "rarest in use", "never used"],
                [
                    [
                        tax.axes[s["axis"]].label,
                        counted(s["axis"], s["common"]),
                        counted(s["axis"], s["rare"]),
                        labels(s["axis"], s["unused"]) or "none",
                    ]
                    for s in reader["sparsity"]
                ],
                "Entries per value over retained entries; a multi-valued axis counts an entry "
                "once per value. These describe this corpus, not the field's prevalence.",
                "llll",
            )
        )
    return out
