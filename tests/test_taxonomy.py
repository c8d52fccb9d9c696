"""The taxonomy is the single source: its rules drive validation, and nothing is hard-coded."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO, edit
from litcorpus.analysis.result import check
from litcorpus.model.taxonomy import load_taxonomy

SOURCE = REPO / "packages" / "litcorpus" / "src" / "litcorpus"


def test_required_when_applies_only_to_its_condition(mini_root: Path) -> None:
    survey = mini_root / "papers/gamma-survey.yaml"
    edit(survey, "credit_granularity: NA\n", "")
    assert check(mini_root, strict=True).ok  # surveys need not state a credit unit
    edit(survey, "category: survey", "category: rl_method")
    problems = check(mini_root).problems
    assert [(p.code, p.field) for p in problems] == [("missing-field", "credit_granularity")]


def test_a_new_axis_is_a_taxonomy_edit(mini_root: Path) -> None:
    """Adding an axis and using it needs no code change."""
    tax_file = mini_root / "taxonomy.yaml"
    head, sep, tail = tax_file.read_text(encoding="utf-8").partition("\nstats:")
    with open(tax_file, "w", encoding="utf-8") as f:
        f.write(head)
        f.write(
            "\n  - id: modality\n    label: Modality\n    applies_to: paper\n"
            "    description: Input modality.\n    values:\n"
            "      - {id: text, order: 1, label: Text, description: Text only.}\n"
            "      - {id: vision, order: 2, label: Vision, description: Images too.}\n"
        )
        f.write(sep + tail)
    edit(mini_root / "papers/alpha-rl.yaml", "scenario: coding", "scenario: coding\nmodality: text")
    assert check(mini_root, strict=True).ok
    edit(mini_root / "papers/alpha-rl.yaml", "modality: text", "modality: audio")
    assert [p.code for p in check(mini_root).problems] == ["unknown-value"]


def test_no_axis_or_value_is_hard_coded_in_python() -> None:
    tax, _ = load_taxonomy(REPO)
    vocabulary = {a.id for a in tax.axes.values()}
    vocabulary |= {v.id for a in tax.axes.values() for v in a.values if len(v.id) > 3}
    vocabulary |= {f"{c}" for a in tax.axes.values() for v in a.values for c in [v.code] if c}
    literals = set()
    for module in SOURCE.rglob("*.py"):
        literals |= set(re.findall(r"[\"']([A-Za-z0-9_]+)[\"']", module.read_text()))
    # also keys of the problem report, gap declarations and evidence items
    contract = {"message", "reason", "source"}
    contract |= {"token"}  # Semantic Scholar's continuation token (searching/services.py)
    schemes = set(tax.id_schemes)  # identifier schemes (BibTeX export writes arXiv eprints)
    assert literals & vocabulary - contract - schemes == set()
