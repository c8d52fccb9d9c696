"""Writes a screening flow as the CSV template of the PRISMA2020 R package and Shiny app
(inst/extdata/PRISMA.csv: data key, node, box, texts, n), from the flows that analysis.prisma
computes; stats/ holds it as prisma2020.csv."""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

# The PRISMA2020 package's CSV template (inst/extdata/PRISMA.csv): data key, node, box.
_TEMPLATE = {
    "previous_studies": ("node5", "box1"),
    "database_results": ("node7", "box2"),
    "website_results": ("node17", "box11"),
    "citations_results": ("NA", "box11"),
    "duplicates": ("node8", "box3"),
    "excluded_automatic": ("NA", "box3"),
    "excluded_other": ("NA", "box3"),
    "records_screened": ("node9", "box4"),
    "records_excluded": ("node10", "box5"),
    "dbr_sought_reports": ("node11", "box6"),
    "dbr_notretrieved_reports": ("node12", "box7"),
    "other_sought_reports": ("node18", "box12"),
    "other_notretrieved_reports": ("node19", "box13"),
    "dbr_assessed": ("node13", "box8"),
    "dbr_excluded": ("node14", "box9"),
    "other_assessed": ("node20", "box14"),
    "other_excluded": ("node21", "box15"),
    "new_studies": ("node15", "box10"),
    "total_studies": ("node22", "box16"),
}


def _after(arm: dict[str, Any], method: str) -> int:
    """Records ARM's searches of METHOD found, less their duplicates and unscreenable ones."""
    return sum(
        b["records_found"] - b["duplicates"] - b["unscreenable"]
        for b in arm["sources"]
        if b["method"] == method
    )


def _reasons(stages: list[dict[str, Any]], labels: dict[str, str]) -> str:
    """'Reason, n; Reason, n' over STAGES, as the template writes reasons."""
    counted: Counter[str] = Counter()
    for s in stages:
        counted.update(s["reasons"])
    return "; ".join(f"{labels.get(r, r)}, {n}" for r, n in counted.items())


def prisma2020_csv(
    flow: dict[str, Any],
    reason_labels: dict[str, str],
    update: dict[str, Any] | None = None,
) -> str | None:
    """The flow in the CSV template that the PRISMA2020 R package reads (PRISMA_data).

    Without UPDATE, the whole corpus is one review: the first stage maps to duplicate
    removal, the second to title/abstract screening, and the later ones together to the
    assessment of reports. With UPDATE, the previous release's studies fill the 'previous
    version' box, the records added since fill the databases arm (logged searches) and the
    other-methods arm, and the total adds both."""
    stages = flow["stages"]
    if len(stages) < 2:
        return None  # the template needs a duplicate stage and a title/abstract stage
    rows: list[tuple[str, str, object]] = []
    if update is None:
        first, screened, later = stages[0], stages[1], stages[2:]
        assessed = later[0]["assessed"] if later else screened["assessed"] - screened["excluded"]
        rows += [
            ("database_results", "Records identified", flow["identified"]),
            ("duplicates", "Duplicate records removed", first["excluded"]),
            ("records_screened", "Records screened on title and abstract", screened["assessed"]),
            ("records_excluded", "Records excluded on title and abstract", screened["excluded"]),
            ("dbr_sought_reports", "Reports sought for retrieval", assessed),
            ("dbr_notretrieved_reports", "Reports not retrieved", 0),
            ("dbr_assessed", "Reports assessed (full text and artifacts)", assessed),
            ("dbr_excluded", "Reports excluded, with reasons", _reasons(later, reason_labels)),
            ("new_studies", "New studies included in review", flow["included"]),
            ("total_studies", "Total studies included in review", flow["included"]),
        ]
    else:
        s, o = update["searches"], update["other"]
        first, screened, later = s["stages"][0], s["stages"][1], s["stages"][2:]
        assessed = screened["assessed"] - screened["excluded"]
        o_assessed = o["stages"][1]["assessed"] - o["stages"][1]["excluded"]
        lost, o_lost = s["not_retrieved"], o["not_retrieved"]
        previous = update["previous"]
        rows += [
            (
                "previous_studies",
                f"Studies included in the previous release ({previous['version']})",
                previous["studies"],
            ),
            (
                "database_results",
                "Records identified from databases (and from earlier searches, screened now)",
                s["identified"] + s["carried"],
            ),
            (
                "website_results",
                "Records identified from websites (paper lists), duplicates removed",
                _after(o, "website"),
            ),
            (
                "citations_results",
                "Records identified by citation searching and otherwise (and from earlier "
                "searches, screened now), duplicates removed",
                o["identified"]
                + o["carried"]
                - o["duplicates"]
                - o["unscreenable"]
                - _after(o, "website"),
            ),
            ("duplicates", "Duplicate records removed", s["duplicates"] + first["excluded"]),
            (
                "excluded_automatic",
                "Records marked as ineligible by automation tools (a stopping rule)",
                s["automation"],
            ),
            (
                "excluded_other",
                "Records removed for other reasons (no title to screen)",
                s["unscreenable"],
            ),
            (
                "records_screened",
                "Records screened on title and abstract",
                screened["assessed"] + lost,
            ),
            ("records_excluded", "Records excluded on title and abstract", screened["excluded"]),
            ("dbr_sought_reports", "Reports sought for retrieval", assessed + lost),
            ("dbr_notretrieved_reports", "Reports not retrieved", lost),
            ("dbr_assessed", "Reports assessed (full text and artifacts)", assessed),
            ("dbr_excluded", "Reports excluded, with reasons", _reasons(later, reason_labels)),
            (
                "other_sought_reports",
                "Reports sought for retrieval (other methods)",
                o_assessed + o_lost,
            ),
            ("other_notretrieved_reports", "Reports not retrieved (other methods)", o_lost),
            ("other_assessed", "Reports assessed (other methods)", o_assessed),
            (
                "other_excluded",
                "Reports excluded, with reasons (other methods)",
                _reasons(o["stages"], reason_labels),
            ),
            ("new_studies", "New studies included in review", update["new_studies"]),
            ("total_studies", "Total studies included in review", update["total_studies"]),
        ]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["data", "node", "box", "description", "boxtext", "tooltips", "url", "n"])
    for data, text, n in rows:
        node, box = _TEMPLATE[data]
        w.writerow([data, node, box, text, text, text, "", n])
    return buf.getvalue()
