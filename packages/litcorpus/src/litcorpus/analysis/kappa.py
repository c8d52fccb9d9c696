"""Cohen's kappa of two raters over the same items, with its large-sample 95% interval.

The interval uses the standard error of Fleiss, Cohen and Everitt (1969), the one statistical
packages report (statsmodels' `cohens_kappa`, R's `psych::cohen.kappa`); it is computed from
the agreement table alone, so it is a few lines rather than a dependency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959964  # the normal distribution's two-sided 95% quantile


def kappa(pairs: Sequence[tuple[str, str]], categories: Sequence[str]) -> dict[str, Any]:
    """Kappa of PAIRS (first rater's category, second rater's) over CATEGORIES: the records,
    observed and chance agreement, kappa with its standard error and 95% interval (None when
    chance agreement is 1, as when both raters always say the same one thing), and the table."""
    n = len(pairs)
    table = {a: {b: 0 for b in categories} for a in categories}
    for a, b in pairs:
        table[a][b] += 1
    out: dict[str, Any] = {"records": n, "table": table}
    if not n:
        return {**out, "observed": None, "expected": None, "kappa": None, "se": None, "ci95": None}
    p = {a: {b: table[a][b] / n for b in categories} for a in categories}
    rows = {a: sum(p[a].values()) for a in categories}
    cols = {b: sum(p[a][b] for a in categories) for b in categories}
    observed = sum(p[c][c] for c in categories)
    expected = sum(rows[c] * cols[c] for c in categories)
    out |= {"observed": round(observed, 4), "expected": round(expected, 4)}
    if expected >= 1:
        return {**out, "kappa": None, "se": None, "ci95": None}
    k = (observed - expected) / (1 - expected)
    on = sum(p[c][c] * (1 - (rows[c] + cols[c]) * (1 - k)) ** 2 for c in categories)
    off = (1 - k) ** 2 * sum(
        p[a][b] * (cols[a] + rows[b]) ** 2 for a in categories for b in categories if a != b
    )
    var = max(on + off - (k - expected * (1 - k)) ** 2, 0.0) / (n * (1 - expected) ** 2)
    se = math.sqrt(var)
    low, high = max(k - Z95 * se, -1.0), min(k + Z95 * se, 1.0)
    return {
        **out,
        "kappa": round(k, 4),
        "se": round(se, 4),
        "ci95": [round(low, 4), round(high, 4)],
    }
