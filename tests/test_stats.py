"""`litcorpus stats`: golden outputs on the fixture corpus, claims, gaps, PRISMA, agreement,
figures, determinism, staleness and atomic writes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image
import pytest

from conftest import edit, make_mini_root
from golden import assert_golden
from litcorpus.analysis.claims import Claim, evaluate_one
from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.statsdir import stats_files


def stats_and_files(root: Path) -> tuple[dict, dict[str, bytes]]:
    """The statistics and files of stats/ for ROOT, figures from the run's shared cache (each
    drawn once a run; golden stats.json pins their bytes by hash, so drawing stays
    reproducible)."""
    result = analyse(load_corpus(root))
    return result.stats, stats_files(result)  # type: ignore[return-value]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict[str, bytes]]:
    return stats_and_files(make_mini_root(tmp_path_factory.mktemp("stats")))


def test_golden_stats(built: tuple[dict, dict[str, bytes]]) -> None:
    _, files = built
    text = {rel: data for rel, data in files.items() if not rel.startswith("figures/")}
    assert_golden("stats", text)


def test_stats_json_contract(built: tuple[dict, dict[str, bytes]]) -> None:
    stats = json.loads(built[1]["stats.json"])
    assert stats["corpus"] == {
        "retained": 3,
        "excluded": 2,
        "audited": 5,
        "hash": stats["corpus"]["hash"],
    }
    assert stats["counts"]["orchestration_decisions"] == {
        "spawn": 1,
        "delegate": 1,
        "communicate": 0,
        "aggregate": 0,
        "stop": 0,
    }
    assert stats["counts"]["reason"]["no_rl_training"] == 1
    assert stats["families"]["reward_type"]["R7"] == 1
    first = stats["crosstabs"][0]
    assert set(first) == {"id", "label", "rows_axis", "cols_axis", "rows", "cols", "cells"}
    assert {"gaps", "claims", "prisma", "scale", "trend", "agreement", "tables"} <= set(stats)


def test_gap_cells_are_typed(built: tuple[dict, dict[str, bytes]]) -> None:
    stats = built[0]
    gaps = {g["id"]: g for g in stats["gaps"]}
    cells = {(c["row"], c["col"]): c for c in gaps["orchestration-learning-gap"]["cells"]}
    assert cells[("spawn", "yes")]["state"] == "sparse"
    assert cells[("spawn", "yes")]["keys"] == ["alpha-rl"]
    assert cells[("stop", "yes")]["state"] == "empty"
    topo = {(c["row"], c["col"]): c for c in gaps["topology-credit-gap"]["cells"]}
    assert topo[("NA", "orchestrator")]["state"] == "expected_empty"
    assert "orchestrator" in topo[("NA", "orchestrator")]["reason"]
    assert topo[("swarm", "orchestrator")]["count"] == 1


def test_filled_cell_declared_empty_is_unexpected(mini_root: Path) -> None:
    edit(mini_root / "papers/alpha-rl.yaml", "orchestration_form: swarm", "orchestration_form: NA")
    stats = analyse(load_corpus(mini_root)).stats  # the numbers only: no files, no figures
    topo = next(g for g in stats["gaps"] if g["id"] == "topology-credit-gap")
    cell = next(c for c in topo["cells"] if (c["row"], c["col"]) == ("NA", "orchestrator"))
    assert cell["state"] == "unexpected" and cell["keys"] == ["alpha-rl"]
    assert topo["summary"]["unexpected"] == 1


def test_filled_state_above_threshold(mini_root: Path) -> None:
    text = (mini_root / "papers/alpha-rl.yaml").read_text()
    for i in range(3):
        key = f"alpha-copy{i}"
        copy = text.replace("key: alpha-rl", f"key: {key}").replace("2501.00001", f"2501.1000{i}")
        copy = copy.replace("Alpha: Learning to Spawn", f"Copy {i} of a paper on how to spawn")
        copy = copy.replace("added: 2026-05-04", "added: 2026-06-01")  # after the release
        (mini_root / f"papers/{key}.yaml").write_text(copy)
    stats = analyse(load_corpus(mini_root)).stats  # the numbers only: no files, no figures
    gap = next(g for g in stats["gaps"] if g["id"] == "orchestration-learning-gap")
    cell = next(c for c in gap["cells"] if (c["row"], c["col"]) == ("spawn", "yes"))
    assert (cell["count"], cell["state"]) == (4, "filled")


DATA = {
    "a": {"category": "rl_method", "is_rl": "yes", "orchestration_decisions": ["spawn"]},
    "b": {"category": "rl_method", "is_rl": "no", "orchestration_decisions": []},
    "c": {"category": "benchmark", "is_rl": "no", "benchmark_measures": ["E1", "E3"]},
}


@pytest.mark.parametrize(
    ("where", "expect", "held", "keys"),
    [
        ({"category": ["rl_method"]}, {"count": {"eq": 2}}, True, ["a", "b"]),
        ({"category": ["rl_method"]}, {"count": {"le": 1}}, False, ["a", "b"]),
        ({}, {"count": {"ge": 3, "lt": 4}}, True, ["a", "b", "c"]),
        ({"is_rl": {"none": ["yes"]}}, {"count": {"ne": 2}}, False, ["b", "c"]),
        ({"orchestration_decisions": ["stop"]}, {"count": {"eq": 0}}, True, []),
        ({"benchmark_measures": {"all": ["E1", "E3"]}}, {"keys": ["c"]}, True, ["c"]),
        ({"benchmark_measures": {"all": ["E1", "E2"]}}, {"keys": ["c"]}, False, []),
        ({"orchestration_decisions": {"present": True}}, {"keys": ["a"]}, True, ["a"]),
        (
            {},
            {"entry": "a", "has": {"is_rl": "yes", "orchestration_decisions": ["spawn"]}},
            True,
            ["a"],
        ),
        ({}, {"entry": "b", "has": {"is_rl": "yes"}}, False, ["b"]),
    ],
)
def test_claim_expectation_kinds(where: dict, expect: dict, held: bool, keys: list[str]) -> None:
    result = evaluate_one(Claim("t", "text", "boundary", "live", "paper", where, expect), DATA)
    assert (result.held, result.keys) == (held, keys)


def test_claims_command_exit_codes(mini_root: Path) -> None:
    result = run("claims", "--root", str(mini_root))
    assert result.returncode == 0 and "5 of 5 claims held" in result.stdout
    edit(mini_root / "claims.yaml", "{keys: [alpha-rl]}", "{keys: [beta-bench]}")
    result = run("claims", "--root", str(mini_root), "--format", "json")
    assert result.returncode == 1
    broken = [c for c in json.loads(result.stdout) if not c["held"]]
    assert [(c["id"], c["keys"]) for c in broken] == [("one-spawner", ["alpha-rl"])]


def rows_of(template: bytes) -> dict[str, str]:
    lines = template.decode().splitlines()
    assert lines[0] == "data,node,box,description,boxtext,tooltips,url,n"
    return {line.split(",")[0]: line.rsplit(",", 1)[1] for line in lines[1:]}


def test_prisma_flow_and_template(built: tuple[dict, dict[str, bytes]], tmp_path: Path) -> None:
    flow = built[0]["prisma"]
    assert [(s["id"], s["assessed"], s["excluded"]) for s in flow["stages"]] == [
        ("duplicate_screen", 5, 0),
        ("abstract_screen", 5, 1),
        ("full_text_screen", 4, 0),
        ("artifact_screen", 4, 1),
    ]
    assert flow["included"] == 3
    # the live corpus holds only the release: the update template says so, no new study
    live = rows_of(built[1]["prisma2020.csv"])
    assert (live["previous_studies"], live["new_studies"], live["total_studies"]) == ("3", "0", "3")
    # the release itself is one review: records identified, screened and included
    root = make_mini_root(tmp_path)
    done = run("stats", "--root", str(root), "--as-of", "2026.05", "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    release = rows_of((tmp_path / "r" / "prisma2020.csv").read_bytes())
    assert release["database_results"] == "5" and release["records_excluded"] == "1"
    assert release["new_studies"] == "3" and "previous_studies" not in release


def test_stats_refuses_a_flow_that_does_not_add_up(mini_root: Path) -> None:
    edit(mini_root / "claims.yaml", "included: 3", "included: 4")
    result = run("stats", "--root", str(mini_root))
    assert result.returncode == 1
    assert "prisma-mismatch" in result.stderr
    assert not (mini_root / "stats").exists()


def test_agreement_command(mini_root: Path) -> None:
    result = run(
        "agreement",
        "--root",
        str(mini_root),
        "--format",
        "json",
        str(mini_root / "reviews/second-reader.csv"),
    )
    assert result.returncode == 0, result.stderr
    axes = {a["axis"]: a for a in json.loads(result.stdout)["axes"]}
    # the fixture's second reader: gamma-survey is_rl no (the corpus: partial), alpha-rl credit
    # agent (the corpus: orchestrator); the rest agree
    assert (axes["is_rl"]["agreed"], axes["is_rl"]["n"]) == (2, 3)
    assert axes["is_rl"]["agreement"] == pytest.approx(0.6667)
    assert axes["category"]["agreement"] == 1.0
    assert "kappa" not in result.stdout
    assert axes["credit_granularity"]["disagreements"] == [
        {"key": "alpha-rl", "corpus": "orchestrator", "second_reader": "agent"}
    ]
    text = run("agreement", "--root", str(mini_root), str(mini_root / "reviews/second-reader.csv"))
    assert "in percent" in text.stdout and "is_rl" in text.stdout and "66.7" in text.stdout


def test_a_second_reader_file_with_a_bom_is_read_as_without(mini_root: Path) -> None:
    """Spreadsheets save CSV with a byte-order mark: it is not part of the first column's
    name (the file once 'needed a key column')."""
    from litcorpus.analysis.agreement import agreement

    corpus = load_corpus(mini_root)
    file = mini_root / "reviews/second-reader.csv"
    plain = agreement(corpus, file)
    file.write_bytes(b"\xef\xbb\xbf" + file.read_bytes())
    assert agreement(corpus, file) == plain and plain[1] == [] and plain[0] is not None


def test_figures_are_valid_svg_and_png(built: tuple[dict, dict[str, bytes]]) -> None:
    figures = {rel: data for rel, data in built[1].items() if rel.startswith("figures/")}
    names = {rel.rsplit(".", 1)[0] for rel in figures}
    assert {
        "figures/gap-orchestration-learning-gap",
        "figures/coverage-orchestration-learning-gap",
        "figures/trend",
        "figures/prisma",
        "figures/scale-gap",
        "figures/counts-paper",
    } <= names
    for rel, data in figures.items():
        if rel.endswith(".svg"):
            root = ET.fromstring(data)
            assert root.tag == "{http://www.w3.org/2000/svg}svg"
        else:
            image = matplotlib.image.imread(io.BytesIO(data), format="png")
            assert image.shape[0] > 100 and image.shape[1] > 100


def test_output_is_deterministic(mini_root: Path, built: tuple[dict, dict[str, bytes]]) -> None:
    assert stats_and_files(mini_root)[1] == built[1]


def test_stats_check_detects_staleness(mini_root: Path) -> None:
    assert run("stats", "--root", str(mini_root)).returncode == 0
    assert run("stats", "--root", str(mini_root), "--check").returncode == 0
    edit(mini_root / "papers/gamma-survey.yaml", "year: 2026", "year: 2025")
    result = run("stats", "--root", str(mini_root), "--check")
    assert result.returncode == 1 and "stale: stats/stats.json" in result.stdout


def test_table_csvs_read_with_default_readers(built: tuple[dict, dict[str, bytes]]) -> None:
    """A table's CSV file starts with its header, so pandas with no options and Python's csv
    module read the right columns; its citation and hash are in tables/index.csv, and the
    hash is that of the file itself."""
    import csv
    import hashlib
    import io

    import pandas as pd

    _, files = built
    index = list(csv.DictReader(io.StringIO(files["tables/index.csv"].decode())))
    assert (
        len(index) == len([p for p in files if p.startswith("tables/") and p.endswith(".csv")]) - 1
    )
    for row in index:
        data = files[row["csv"]]
        header = next(csv.reader(io.StringIO(data.decode())))
        frame = pd.read_csv(io.BytesIO(data))
        assert list(frame.columns) == header and not header[0].startswith("#"), row["id"]
        assert hashlib.sha256(data).hexdigest()[:12] == row["sha256"]
        assert row["citation"] == f"{row['id']}, corpus 2026.05, sha256:{row['sha256']}"
    claims = pd.read_csv(io.BytesIO(files["tables/claims.csv"]))
    assert list(claims.columns) == ["claim", "held", "expected", "actual"]
    assert len(claims) == 5  # the fixture's five claims, one row each
    tex = files["tables/claims.tex"].decode()
    assert "booktabs" in tex.splitlines()[1] and r"\toprule" in tex


WITHDRAWN = """id: E003
title: "Beta: A Benchmark for Agent Teams"
ids:
  arxiv: "2301.00002"
url: https://arxiv.org/abs/2301.00002
source: arxiv
query_family: benchmark
date_screened: 2026-05-04
stage: full_text_screen
reason: out_of_domain
note: "Withdrawn on a second reading."
added: 2026-05-04
"""
MOVED = (
    '    corrections:\n      - {date: "2026-05-20", entry: beta-bench, field: kind, '
    'was: paper, now: "exclusion:E003", why: "Withdrawn."}\n'
)


def test_a_record_moved_to_another_kind_keeps_its_release_claims(mini_root: Path) -> None:
    """An entry withdrawn to an exclusion after its release: the release's counts stand as
    published, counting it as the entry it was and not as the exclusion it is now (its tags
    as published are gone with it, so a count filtered by tags is not restored)."""
    claims = mini_root / "claims.yaml"
    count = (
        '  - id: entries\n    snapshot: "2026.05"\n    text: "Three entries."\n'
        '    boundary: "Fixture corpus."\n    expect: {count: {eq: 3}}\n'
    )
    edit(claims, "prisma:\n", count + "prisma:\n")
    (mini_root / "papers" / "beta-bench.yaml").unlink()
    (mini_root / "exclusions" / "E003.yaml").write_text(WITHDRAWN, encoding="utf-8")

    def verdicts() -> dict[str, tuple[bool, bool]]:
        result = analyse(load_corpus(mini_root), stats=False)
        return {c.claim.id: (c.at.held, c.held) for c in result.claims}

    before = verdicts()  # one entry fewer, one exclusion more: both counts break
    assert before["entries"] == (False, False)
    assert before["exclusions"] == (False, False)
    edit(claims, "    expect: {count: {eq: 3}}\n", "    expect: {count: {eq: 3}}\n" + MOVED)
    edit(claims, "    kind: exclusion\n    expect: {count: {eq: 2}}\n",
         "    kind: exclusion\n    expect: {count: {eq: 2}}\n" + MOVED)  # fmt: skip
    after = verdicts()
    assert after["entries"] == (False, True)  # held as published, revised since
    assert after["exclusions"] == (False, True)
    assert after["few-benchmarks"] == (False, False)  # no correction declared: still broken
    # a correction must name the record as it is now, and the old one must be gone
    edit(claims, "{count: {eq: 2}}\n" + MOVED,
         "{count: {eq: 2}}\n" + MOVED.replace("E003", "E009"))  # fmt: skip
    report = analyse(load_corpus(mini_root), stats=False).report
    assert any(p.code == "claim-invalid" and "E009" in p.message for p in report.problems)


def test_a_declared_flow_counts_a_record_decided_again_as_it_stood(mini_root: Path) -> None:
    """An exclusion of the flow's release retained since, as an entry added later: the release's
    declared flow is checked with it counted as the exclusion it was, at the stage its
    correction names; a wrong or unknown stage is reported."""
    claims = mini_root / "claims.yaml"
    exclusion = (mini_root / "exclusions" / "E001.yaml").read_text(encoding="utf-8")
    assert "stage: abstract_screen" in exclusion
    (mini_root / "exclusions" / "E001.yaml").unlink()
    paper = (mini_root / "papers" / "beta-bench.yaml").read_text(encoding="utf-8")
    paper = paper.replace("key: beta-bench", "key: delta").replace("2406.00002", "2301.00003")
    paper = paper.replace("BetaBench: Measuring", "Delta: Measuring")
    (mini_root / "papers" / "delta.yaml").write_text(
        paper.replace("added: 2026-05-04", "added: 2026-05-20"), encoding="utf-8"
    )

    def flow_problems() -> list[str]:
        report = analyse(load_corpus(mini_root), stats=False).report
        return [f"{p.code} {p.message}" for p in report.problems if p.path == "claims.yaml"]

    assert any("prisma-mismatch declared 5, but the records give 4" in p for p in flow_problems())
    corrected = (
        'prisma:\n  corrections:\n    - {date: "2026-05-20", entry: E001, field: kind, '
        'was: exclusion, now: "paper:delta", why: "Retained.", left_at: abstract_screen}\n'
    )
    edit(claims, "prisma:\n", corrected)
    assert flow_problems() == []
    edit(claims, "left_at: abstract_screen}", "left_at: artifact_screen}")
    assert any("prisma-mismatch" in p for p in flow_problems())  # counted at the wrong stage
    edit(claims, "left_at: artifact_screen}", "left_at: abstracts}")
    assert any(p.startswith("unknown-value 'abstracts'") for p in flow_problems())
    edit(claims, ", left_at: abstracts}", "}")
    assert any(p.startswith("claim-invalid a flow's correction") for p in flow_problems())


def test_the_update_flow_figure_keeps_each_text_inside_its_box() -> None:
    """Many exclusion reasons and records carried over still fit their boxes."""
    from litcorpus.publish.flowplots import prisma_update

    stages = [
        {"excluded": 2, "reasons": {}},
        {"assessed": 79, "excluded": 53, "reasons": {f"r{i}": i for i in range(1, 9)}},
        {"excluded": 0, "reasons": {}},
    ]
    arm = {"identified": 205, "carried": 7, "duplicates": 131, "unscreenable": 0,
           "not_retrieved": 1, "stages": stages, "included": 24}  # fmt: skip
    update = {"previous": {"version": "2026.12", "studies": 305}, "searches": arm,
              "other": {**arm, "carried": 1}, "new_studies": 48, "total_studies": 353}  # fmt: skip
    reasons = {f"r{i}": f"X{i} A reason with a long label number {i}" for i in range(1, 9)}
    fig = prisma_update(update, reasons)
    fig.canvas.draw()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [p.get_window_extent(renderer) for p in ax.patches]
    for text in ax.texts:
        if not text.get_text():
            continue  # an arrow's empty label
        got = text.get_window_extent(renderer)
        home = [b for b in boxes if b.contains(*got.get_points().mean(axis=0))]
        assert home, text.get_text()
        assert home[0].x0 <= got.x0 and got.x1 <= home[0].x1, text.get_text()
        assert home[0].y0 <= got.y0 and got.y1 <= home[0].y1, text.get_text()
