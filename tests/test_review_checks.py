"""The blind checks a release reports: Cohen's kappa with its interval, the blind second
screening of decided records (worksheet, comparison, conflicts and resolutions, stats) and a
blind second reader's tags."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import edit
from litcorpus.analysis.kappa import kappa
from test_search_import import litcorpus


def pairs(table: list[list[int]], cats: list[str]) -> list[tuple[str, str]]:
    return [(cats[i], cats[j]) for i, row in enumerate(table) for j, n in enumerate(row)
            for _ in range(n)]  # fmt: skip


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # by hand: observed 35/50 = 0.7; margins 0.5/0.5 and 0.6/0.4, chance 0.3 + 0.2 = 0.5;
        # kappa (0.7 - 0.5) / 0.5 = 0.4. The standard errors and intervals of all three are
        # those statsmodels 0.15.0's cohens_kappa reports for the same tables.
        ([[20, 5], [10, 15]], (0.4, 0.127, [0.1511, 0.6489])),
        ([[40, 3], [6, 51]], (0.818, 0.0578, [0.7047, 0.9312])),
        ([[10, 2, 1], [3, 12, 2], [0, 4, 9]], (0.5764, 0.1048, [0.3709, 0.7818])),
    ],
)
def test_kappa_and_its_interval_match_the_reference(
    table: list[list[int]], expected: tuple
) -> None:
    cats = ["a", "b", "c"][: len(table)]
    got = kappa(pairs(table, cats), cats)
    assert (got["kappa"], got["se"], got["ci95"]) == expected
    assert got["records"] == sum(map(sum, table))


def test_kappa_is_undefined_when_both_always_say_one_thing() -> None:
    got = kappa([("a", "a")] * 5, ["a", "b"])
    assert got["observed"] == 1.0 and got["kappa"] is None and got["ci95"] is None


AUDIT = """  screening_audit:
    file: reviews/audit.csv
    seed: 5
    skip_stages: [duplicate_screen]
    method: "A test."
"""
ANCHOR = "  # The reader tables and concept figures"


def sheet(root: Path, *args: str) -> list[dict[str, str]]:
    run = litcorpus("screen", "audit-sample", "--root", str(root), *args)
    assert run.returncode == 0, run.stderr
    return list(csv.DictReader(io.StringIO(run.stdout)))


def write(path: Path, rows: list[dict[str, str]]) -> None:
    out = io.StringIO()
    w = csv.DictWriter(out, list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def decided(root: Path) -> dict[str, tuple[str, str]]:
    """Each record's title -> (decision, reason code), read from the files themselves."""
    tax = yaml.safe_load((root / "taxonomy.yaml").read_text())
    reason = next(a for a in tax["axes"] if a["id"] == "reason")
    codes = {v["id"]: v["code"] for v in reason["values"]}
    out = {}
    for p in (root / "papers").glob("*.yaml"):
        out[yaml.safe_load(p.read_text())["title"]] = ("include", "")
    for p in (root / "exclusions").glob("*.yaml"):
        d = yaml.safe_load(p.read_text())
        if d["stage"] != "duplicate_screen":
            out[d["title"]] = ("exclude", codes.get(d["reason"], d["reason"]))
    return out


def test_the_audit_worksheet_is_blind_reproducible_and_stratified(clone: Path) -> None:
    edit(clone / "taxonomy.yaml", ANCHOR, AUDIT + ANCHOR)  # skips the duplicate screen
    rows = sheet(clone, "--size", "30", "--seed", "5")
    assert len(rows) == 30 and list(rows[0]) == [
        "id", "title", "url", "arxiv", "doi", "decision", "reason", "note"]  # fmt: skip
    # nothing in a row tells an entry from an exclusion: neutral ids, empty decisions
    assert all(re.fullmatch(r"R[0-9a-f]{8}", r["id"]) for r in rows)
    assert not any(r["decision"] or r["reason"] or r["note"] for r in rows)
    keys = {p.stem for p in (clone / "papers").glob("*.yaml")}
    assert not keys & {r["id"] for r in rows}
    assert rows == sheet(clone, "--size", "30", "--seed", "5")
    assert rows != sheet(clone, "--size", "30", "--seed", "6")
    truth = decided(clone)
    included = sum(1 for d, _ in truth.values() if d == "include")
    drawn = [truth[r["title"]] for r in rows]
    share = 30 * included / len(truth)
    assert abs(sum(1 for d, _ in drawn if d == "include") - share) <= 1
    strata = {f"{d} {c}" for d, c in truth.values()}
    assert {f"{d} {c}" for d, c in drawn} == strata  # every stratum at least once


def test_the_audit_compares_reports_conflicts_and_reaches_stats(
    clone: Path, tmp_path: Path
) -> None:
    edit(clone / "taxonomy.yaml", ANCHOR, AUDIT + ANCHOR)
    rows = sheet(clone, "--size", "30", "--seed", "5")
    truth = decided(clone)
    inc = [r for r in rows if truth[r["title"]][0] == "include"]
    exc = [r for r in rows if truth[r["title"]][0] == "exclude"]
    for r in rows:
        r["decision"], r["reason"] = truth[r["title"]]
    # two conflicts: an entry the second screener excludes, an exclusion it includes; and one
    # exclusion for another reason (an agreement on exclude, not on the reason)
    inc[0]["decision"], inc[0]["reason"] = "exclude", "X2"
    exc[0]["decision"], exc[0]["reason"] = "include", ""
    exc[1]["reason"] = "X3" if exc[1]["reason"] != "X3" else "X1"
    for r in rows:
        r["resolution"] = r["resolution_note"] = ""
    write(clone / "reviews" / "audit.csv", rows)
    run = litcorpus("screen", "audit", "--root", str(clone), "--format", "json")
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    a, b = len(inc), len(exc)
    # by hand: table [[a-1, 1], [1, b-1]] of 30 records
    observed = (28) / 30
    chance = (a / 30) * (a / 30) + (b / 30) * (b / 30)
    assert got["table"] == {"include": {"include": a - 1, "exclude": 1},
                            "exclude": {"include": 1, "exclude": b - 1}}  # fmt: skip
    assert got["kappa"] == round((observed - chance) / (1 - chance), 4)
    assert got["ci95"][0] < got["kappa"] < got["ci95"][1]
    assert got["reason_agreement"] == {"both_excluded": b - 1, "same_reason": b - 2}
    assert sorted(c["id"] for c in got["conflicts"]) == sorted([inc[0]["id"], exc[0]["id"]])
    assert got["unresolved"] == 2
    # the owner resolves both; stats and the stats README carry the audit
    for r in (inc[0], exc[0]):
        r["resolution"], r["resolution_note"] = "corpus", "Rule I3 holds."
    write(clone / "reviews" / "audit.csv", rows)
    run = litcorpus("screen", "audit", "--root", str(clone))
    assert run.returncode == 0, run.stderr
    assert "conflicts: 2, unresolved: 0" in run.stdout
    # frozen, the measure outlives a correction of the corpus: the entry the second screener
    # excluded leaves the corpus, and the audit still compares with what the corpus said
    run = litcorpus("screen", "audit", "--root", str(clone), "--freeze", "--format", "json")
    assert run.returncode == 0, run.stderr
    frozen = json.loads(run.stdout)
    conflict = next(c for c in frozen["conflicts"] if c["id"] == inc[0]["id"])
    (clone / "papers" / f"{conflict['record']}.yaml").rename(tmp_path / "moved.yaml")
    run = litcorpus("screen", "audit", "--root", str(clone), "--format", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == frozen
    (tmp_path / "moved.yaml").rename(clone / "papers" / f"{conflict['record']}.yaml")
    run = litcorpus("stats", "--root", str(clone))
    assert run.returncode == 0, run.stderr
    stats = json.loads((clone / "stats" / "stats.json").read_text(encoding="utf-8"))
    assert stats["screening_audit"]["kappa"] == got["kappa"]
    readme = (clone / "stats" / "README.md").read_text(encoding="utf-8")
    assert "## Blind second screening" in readme and "Rule I3 holds." in readme
    # and the release notes carry it
    run = litcorpus("release", "2026.12", "--root", str(clone), "--title", "Audited")
    assert run.returncode == 0, run.stderr
    notes = (clone / "CHANGELOG.md").read_text(encoding="utf-8")
    ci = got["ci95"]
    assert (
        f"- Blind second screening of 30 decided records: Cohen's kappa {got['kappa']} "
        f"(95% CI {ci[0]} to {ci[1]}); 2 conflicts (2 corpus)" in notes
    )


def test_a_bad_audit_worksheet_is_named_by_line_and_fails_check(clone: Path) -> None:
    edit(clone / "taxonomy.yaml", ANCHOR, AUDIT + ANCHOR)
    rows = sheet(clone, "--size", "5", "--seed", "5")
    body = [
        "id,decision,reason",
        f"{rows[0]['id']},include,",
        "Rdeadbeef,include,",
        f"{rows[1]['id']},maybe,",
        f"{rows[2]['id']},exclude,X99",
        f"{rows[0]['id']},exclude,X2",
    ]
    (clone / "reviews" / "audit.csv").write_text("\n".join(body) + "\n", encoding="utf-8")
    run = litcorpus("check", "--root", str(clone))
    assert run.returncode == 1 and "Traceback" not in run.stderr + run.stdout
    found = re.findall(r"reviews/audit\.csv:(\d+):1: screening-audit-invalid", run.stdout)
    assert found == ["3", "4", "5", "6"]


def test_a_blind_second_reader_gets_kappa_and_list_axes_compare_as_sets(
    mini_root: Path,
) -> None:
    rows = [
        "key,ann_category,ann_is_rl,ann_orchestration_decisions",
        "alpha-rl,rl_method,yes,delegate;spawn",  # the corpus lists spawn, delegate
        "beta-bench,benchmark,yes,",
        "gamma-survey,benchmark,partial,",
    ]
    (mini_root / "reviews" / "blind.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    declaration = '  blind_agreement:\n    file: reviews/blind.csv\n    method: "Blind."\n'
    edit(
        mini_root / "taxonomy.yaml", "  # The reader tables", declaration + "  # The reader tables"
    )
    run = litcorpus("stats", "--root", str(mini_root))
    assert run.returncode == 0, run.stderr
    stats = json.loads((mini_root / "stats" / "stats.json").read_text(encoding="utf-8"))
    axes = {a["axis"]: a for a in stats["blind_agreement"]["axes"]}
    assert axes["orchestration_decisions"]["agreed"] == 3 and "kappa" not in axes[
        "orchestration_decisions"]  # fmt: skip
    # is_rl: corpus yes/no/partial, reader yes/yes/partial: 2 of 3; by hand kappa:
    # observed 2/3; chance (1/3)(2/3) + (1/3)(0) + (1/3)(1/3) = 1/3; kappa (2/3-1/3)/(2/3) = 0.5
    assert (axes["is_rl"]["agreed"], axes["is_rl"]["kappa"]) == (2, 0.5)
    assert stats["agreement"]["method"] != "Blind."  # the adjudication check stays as it was
    assert "## Blind second reader" in (mini_root / "stats" / "README.md").read_text()
