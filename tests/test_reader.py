"""The reader tables and concept figures: computed from the entries as taxonomy.yaml's
stats.reader declares them, named by short names, checked by `check`, and published in
stats/, the README and the site."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO, edit, make_mini_root
from litcorpus.analysis.reader import reader_tables
from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus
from litcorpus.model.naming import short_name
from litcorpus.publish.readme import render_readme
from litcorpus.publish.statsdir import stats_files


def reader_of(root: Path) -> dict:
    out = reader_tables(load_corpus(root))
    assert out is not None
    return out


def test_fixture_reader_tables_by_hand(mini_root: Path) -> None:
    # alpha-rl: swarm, orchestration reward, orchestrator credit (strict), learns spawn
    # (curator) and delegate (survey figure); beta-bench: native benchmark scoring E1 and E3.
    r = reader_of(mini_root)
    topo = {row["value"]: row for row in r["topologies"]["rows"]}
    assert "NA" not in topo
    assert topo["swarm"] == {"value": "swarm", "shape": "fan", "count": 1, "examples": ["alpha-rl"]}
    assert topo["debate"]["count"] == 0 and topo["debate"]["examples"] == []
    fams = {row["code"]: row for row in r["families"]["rows"]}
    assert fams["R7"]["count"] == 1
    assert fams["R7"]["typical"] == ["orchestrator"] and fams["R7"]["typical_count"] == 1
    assert fams["R6"]["values"] == ["debate", "verifier"]
    assert fams["R1"]["typical"] == [] and fams["R1"]["count"] == 0
    assert r["benchmarks"]["rows"] == [
        {
            "key": "beta-bench",
            "group": "general",
            "multiagent": "native",
            "measures": [["E1", "E3"], []],
        }
    ]
    sparsity = {s["axis"]: s for s in r["sparsity"]}
    assert sparsity["reward_type"]["common"] == [["orchestration", 1]]
    assert sparsity["reward_type"]["rare"] == []
    assert "shared" in sparsity["reward_type"]["unused"]
    assert "NA" not in sparsity["reward_type"]["unused"]
    ladder = {row["value"]: row for row in r["credit"]["rows"]}
    assert ladder["orchestrator"] == {"value": "orchestrator", "count": 1, "estimated": 1}
    assert ladder["message"] == {"value": "message", "count": 0, "estimated": 0}
    sub = {row["value"]: row for row in r["subdecisions"]["rows"]}
    assert sub["delegate"]["anchors"] == [{"key": "alpha-rl", "how": "learned"}]
    assert sub["spawn"] == {"value": "spawn", "learned": 1, "designed": 0, "anchors": []}
    assert r["names"] == {"alpha-rl": "Alpha", "beta-bench": "BetaBench"}


def test_typical_credit_names_every_unit_on_a_tie_and_examples_prefer_core(
    mini_root: Path,
) -> None:
    # a second orchestration-reward entry with agent credit ties with alpha-rl's orchestrator
    src = (mini_root / "papers" / "alpha-rl.yaml").read_text()
    twin = src.replace("key: alpha-rl", "key: delta-rl").replace(
        "credit_granularity: orchestrator", "credit_granularity: agent"
    )
    twin = twin.replace("is_core: core", "is_core: supporting").replace("year: 2025", "year: 2026")
    twin = twin.replace('title: "Alpha:', 'title: "Delta:').replace("2501.00001", "2501.00009")
    (mini_root / "papers" / "delta-rl.yaml").write_text(twin)
    r = reader_of(mini_root)
    r7 = next(row for row in r["families"]["rows"] if row["code"] == "R7")
    assert r7["typical"] == ["agent", "orchestrator"] and r7["typical_count"] == 1
    # alpha-rl is core, delta-rl newer but supporting: the core entry comes first
    assert r7["examples"] == ["alpha-rl", "delta-rl"]


def test_short_names() -> None:
    assert short_name({"name": "C3", "title": "Contextual Counterfactual Credit"}) == "C3"
    assert short_name({"title": "HALO: Hierarchical Autonomous Logic"}) == "HALO"
    long_head = {"title": "A Troublemaker with Contagious Jailbreak: Chaos", "year": 2025,
                 "authors": ["Men, Tianyi", "others"]}  # fmt: skip
    assert short_name(long_head) == "Men et al., 2025"
    assert short_name({"title": "Proximal Policy", "year": 2017, "authors": ["Org"]}) == "Org, 2017"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("axis: orchestration_form\n      shapes", "axis: orchestration_fom\n      shapes",
         "'orchestration_fom' is not an axis of paper records"),
        ("swarm: fan,", "swarm: spiral,", "unknown shape 'spiral'"),
        ("anchor: survey_figure", "anchor: figure", "'figure' is not a source"),
        ("families: {axis: reward_type,", "families: {axis: scenario,",
         "axis 'scenario' declares no families"),
    ],
)  # fmt: skip
def test_reader_declaration_is_checked(mini_root: Path, old: str, new: str, message: str) -> None:
    edit(mini_root / "taxonomy.yaml", old, new)
    report = analyse(load_corpus(mini_root), stats=False).report
    found = [p for p in report.problems if p.code == "taxonomy-invalid"]
    assert any(message in p.message for p in found), [p.message for p in found]
    assert all(p.path == "taxonomy.yaml" and p.line for p in found)


def test_published_in_stats_readme_and_site(tmp_path: Path) -> None:
    root = make_mini_root(tmp_path)
    files = stats_files(analyse(load_corpus(root)))  # figures from the run's cache
    stats = json.loads(files["stats.json"])
    assert set(stats["reader"]) >= {"topologies", "families", "benchmarks", "sparsity"}
    for table in ("topologies", "reward-families", "benchmarks", "sparsity"):
        assert f"tables/reader-{table}.csv" in files
    for figure in ("topologies", "credit", "subdecisions"):
        svg = files[f"figures/concept-{figure}.svg"]
        ET.fromstring(svg)  # well-formed
        assert f"figures/concept-{figure}.png" in files
    topo_svg = files["figures/concept-topologies.svg"].decode()
    assert "Swarm (1)" in topo_svg and "Alpha" in topo_svg
    readme = render_readme(load_corpus(root), (REPO / "README.md").read_text())
    assert "## Survey maps" in readme and "## Reader tables" in readme
    assert "(stats/figures/concept-subdecisions.svg)" in readme
    assert "| General  | BetaBench | Native" in readme
