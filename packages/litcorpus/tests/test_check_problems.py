"""One small bad input per problem code: `check` reports that code, at that file and line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from claimcases import CLAIM_CASES
from corpusfixtures import (
    edit,
    mini_root_fixture,  # noqa: F401 (the mini_root fixture)
)
from litcorpus.analysis.result import check
from litcorpus.model.problems import CODES
from problemcases import CASES as ENTRY_CASES
from problemcases import A, B, T

CASES = ENTRY_CASES + CLAIM_CASES


@pytest.mark.parametrize(
    ("action", "code", "path", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_problem_code(
    mini_root: Path, action: Callable[[Path], None], code: str, path: str, line: int | None
) -> None:
    assert check(mini_root, strict=True).ok
    action(mini_root)
    report = check(mini_root, strict=True)
    assert not report.ok
    hits = [p for p in report.problems if p.code == code and p.path == path]
    assert hits, f"expected {code} at {path}, got:\n{report.to_text()}"
    if line is not None:
        assert line in {p.line for p in hits}, report.to_text()
    else:
        assert all(p.line is None or p.line >= 1 for p in hits)


def test_every_code_has_a_fixture() -> None:
    """Every registered problem code is exercised by a case above."""
    assert {c[2] for c in CASES} == set(CODES)


def test_a_reward_family_needs_a_quote_and_not_applicable_needs_none(mini_root: Path) -> None:
    """An evidence field declared over reward_type asks alpha-rl (orchestration reward) for its
    quote and neither Not-applicable entry; a quote for NA is one for a value not tagged."""
    field = (
        "      - {id: reward_evidence, type: evidence, required: false, axes: [reward_type], "
        'sources: [curator], description: "Where the reward family comes from."}\n'
    )
    anchor = "      - {id: orchestration_evidence,"
    edit(mini_root / T, anchor, field + anchor)
    found = [(p.code, p.path, p.line) for p in check(mini_root).problems]
    assert found == [("missing-evidence", A, 14)]
    quote = "{source: curator, quote: scores the speed-up, where: fixture abstract}"
    edit(mini_root / A, "credit_strictness: strict", f"credit_strictness: strict\n"
         f"reward_evidence:\n  orchestration: {quote}")  # fmt: skip
    assert check(mini_root, strict=True).ok
    edit(mini_root / B, "credit_granularity: NA", f"credit_granularity: NA\n"
         f"reward_evidence:\n  NA: {quote}")  # fmt: skip
    assert [(p.code, p.path) for p in check(mini_root).problems] == [("stray-evidence", B)]
