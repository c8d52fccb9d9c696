"""The screening flow (PRISMA style): computed from the records, checked against the flow the
survey declares in claims.yaml, and written in the PRISMA2020 package's CSV template.

Every record is identified once; each screening stage, in the taxonomy's order, removes the
exclusions coded with it; what survives the last stage is the retained corpus.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

from ..model.corpus import Corpus
from ..model.problems import Problem
from ..model.views import Views
from .claims import CLAIMS_FILE, ClaimsFile


def compute_flow(corpus: Corpus, views: Views) -> dict[str, Any] | None:
    """Boxes of the flow: identified, each stage (assessed, excluded by reason), included."""
    if not views.prisma:
        return None
    tax, p = corpus.taxonomy, views.prisma
    stage_axis, reason_axis = tax.axes[p["stage_axis"]], tax.axes[p["reason_axis"]]
    excluded = [r.data for r in corpus.of(p["kind"])]
    included = sum(1 for k in tax.kinds if k != p["kind"] for _ in corpus.of(k))
    remaining = len(excluded) + included
    flow: dict[str, Any] = {"identified": remaining, "stages": [], "included": included}
    for stage in stage_axis.values:
        here = [d for d in excluded if d.get(stage_axis.id) == stage.id]
        reasons = Counter(str(d.get(reason_axis.id)) for d in here)
        flow["stages"].append(
            {
                "id": stage.id,
                "label": stage.label,
                "assessed": remaining,
                "excluded": len(here),
                "reasons": {v.id: reasons[v.id] for v in reason_axis.values if reasons[v.id]},
            }
        )
        remaining -= len(here)
    return flow


def flow_problems(loaded: ClaimsFile, flow: dict[str, Any] | None) -> list[Problem]:
    """The declared flow must add up box by box, and equal the flow the records give."""
    declared, doc = loaded.prisma, loaded.doc
    if declared is None or flow is None:
        return []
    out: list[Problem] = []

    def bad(path: tuple[str, ...], message: str) -> None:
        line, col = doc.where(("prisma", *path))
        out.append(
            Problem(
                CLAIMS_FILE,
                "prisma-mismatch",
                message,
                line,
                col,
                ".".join(("prisma", *path)),
                "fix the declared numbers or the records' stages",
            )
        )

    raw_stages = declared.get("stages")
    stages: dict[str, Any] = raw_stages if isinstance(raw_stages, dict) else {}
    order = [s["id"] for s in flow["stages"]]
    if list(stages) != order:
        bad(("stages",), f"stages must be {', '.join(order)} in this order")
        return out
    carried = declared.get("identified")
    for name, box in stages.items():
        assessed = box.get("assessed") if isinstance(box, dict) else None
        excluded = box.get("excluded") if isinstance(box, dict) else None
        if assessed != carried:
            bad(
                ("stages", name, "assessed"),
                f"{name}: {assessed} assessed, but the box before leaves {carried}",
            )
        if not isinstance(assessed, int) or not isinstance(excluded, int):
            bad(("stages", name), f"{name} needs whole-number assessed and excluded")
            return out
        carried = assessed - excluded
    if declared.get("included") != carried:
        bad(
            ("included",),
            f"{declared.get('included')} included, but the last stage leaves {carried}",
        )
    computed = {"identified": flow["identified"], "included": flow["included"]}
    for s in flow["stages"]:
        computed[f"stages.{s['id']}.assessed"] = s["assessed"]
        computed[f"stages.{s['id']}.excluded"] = s["excluded"]
    for name, value in computed.items():
        parts = tuple(name.split("."))
        node: Any = declared
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node != value:
            bad(parts, f"declared {node}, but the records give {value}")
    return out


def prisma2020_csv(flow: dict[str, Any], reason_labels: dict[str, str]) -> str | None:
    """The flow in the CSV template that the PRISMA2020 R package reads (PRISMA_data).

    The first stage maps to duplicate removal, the second to title/abstract screening, and
    the later ones together to the assessment of reports."""
    stages = flow["stages"]
    if len(stages) < 2:
        return None  # the template needs a duplicate stage and a title/abstract stage
    first, screened, later = stages[0], stages[1], stages[2:]
    assessed = later[0]["assessed"] if later else screened["assessed"] - screened["excluded"]
    reasons: Counter[str] = Counter()
    for s in later:
        reasons.update(s["reasons"])
    excluded_text = "; ".join(f"{reason_labels.get(r, r)}, {n}" for r, n in reasons.items())
    rows = [
        ("database_results", "node7", "box2", "Records identified", flow["identified"]),
        ("duplicates", "node8", "box3", "Duplicate records removed", first["excluded"]),
        (
            "records_screened",
            "node9",
            "box4",
            "Records screened on title and abstract",
            screened["assessed"],
        ),
        (
            "records_excluded",
            "node10",
            "box5",
            "Records excluded on title and abstract",
            screened["excluded"],
        ),
        ("dbr_sought_reports", "node11", "box6", "Reports sought for retrieval", assessed),
        ("dbr_notretrieved_reports", "node12", "box7", "Reports not retrieved", 0),
        ("dbr_assessed", "node13", "box8", "Reports assessed (full text and artifacts)", assessed),
        ("dbr_excluded", "node14", "box9", "Reports excluded, with reasons", excluded_text),
        ("new_studies", "node15", "box10", "New studies included in review", flow["included"]),
        ("total_studies", "node22", "box16", "Total studies included in review", flow["included"]),
    ]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["data", "node", "box", "description", "boxtext", "tooltips", "url", "n"])
    for data, node, box, text, n in rows:
        w.writerow([data, node, box, text, text, text, "", n])
    return buf.getvalue()
