"""The shipped data, apart from the tests of the code: the corpus is clean, faithful to the
reference pool and curated in its own words; its taxonomy loads clean and carries the survey's
codes; its reader tables agree with the survey's figures; and what is committed (stats/,
README.md) is what the code generates from it."""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import re
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from conftest import REFERENCE, REPO
from litcorpus.analysis.prisma import update_flow
from litcorpus.analysis.reader import reader_tables
from litcorpus.analysis.result import check
from litcorpus.model.corpus import Corpus, load_corpus
from litcorpus.model.queue import load_queue
from litcorpus.model.searches import load_searches
from litcorpus.model.taxonomy import load_taxonomy
from reference.ngrams import hashed_grams

REFERENCE_AXES = [
    "category",
    "is_rl",
    "reward_type",
    "credit_granularity",
    "orchestration_form",
    "scenario",
    "is_core",
    "verified",
]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(REPO)


@pytest.fixture(scope="module")
def snapshot(corpus: Corpus) -> Corpus:
    """The corpus as the survey's snapshot held it (later records left out)."""
    return corpus.as_of(dt.date.fromisoformat(SNAPSHOT))


@pytest.fixture(scope="module")
def reference() -> dict[str, dict[str, str]]:
    with open(REFERENCE / "papers.csv", encoding="utf-8") as f:
        return {row["key"]: row for row in csv.DictReader(f)}


@pytest.fixture(scope="module")
def excluded() -> dict[str, dict[str, str]]:
    with open(REFERENCE / "excluded.csv", encoding="utf-8") as f:
        return {row["record_id"]: row for row in csv.DictReader(f)}


SNAPSHOT = "2026-05-04"  # the survey's snapshot: the records the reference pool holds
# What the 2026-12 audit corrected in the snapshot's own records (each said in the entry's
# notes; the claim a correction moves declares it): (entry, field) -> (pool's value, ours).
AUDITED = {
    ("mas-zero2025", "is_rl"): ("no", "partial"),
    ("tau-bench2024", "venue"): ("arXiv", "ICLR 2025"),
    ("langmarl2026", "affiliation"): ("Xi'an Jiaotong University", "Arizona State University"),
    ("paramanager", "credit_strictness"): ("strict", "broad"),
    ("wideseek-r1-2026", "credit_strictness"): ("strict", "broad"),
    # round two (2026-12-07): affiliations read from the works' own pages, preference
    # optimisation read as is_rl partial, a venue the proceedings page gives
    ("agentspawn", "affiliation"): ("unknown", "AutoHand Evolve"),
    ("lamo2026", "affiliation"): (
        "unknown",
        "Zhejiang Key Laboratory of Accessible Perception and Intelligent Systems, Zhejiang "
        "University / College of Computer Science and Technology, Zhejiang University",
    ),
    ("learning-to-deliberate2025", "venue"): ("arXiv", "AAAI 2026"),
    ("learning-to-deliberate2025", "affiliation"): ("unknown", "University of Southern California"),
    ("malt", "is_rl"): ("yes", "partial"),
    ("mtu-bench2025", "affiliation"): ("unknown", "Alibaba Group"),
    ("sage2026", "affiliation"): (
        "unknown",
        "College of Computer Science and Software Engineering, Shenzhen University",
    ),
    ("sirius2025", "affiliation"): ("unknown", "Stanford University"),
    ("wideseek-r1-2026", "affiliation"): ("unknown", "EE, Tsinghua University"),
    # round two, second pass: affiliations from the works' author blocks (arXiv HTML, project page)
    ("codecriticbench2025", "affiliation"): ("unknown", "M-A-P"),
    ("collabuiagents2025", "affiliation"): (
        "unknown",
        "Tsinghua University / The Hong Kong University of Science and Technology",
    ),
    ("marshal2026", "affiliation"): ("unknown", "Tsinghua University"),
    # round two, third pass: first-author affiliations from the author block (arXiv HTML, or a
    # page that reproduces it; each entry's notes name the page)
    ("marsrl", "affiliation"): ("unknown", "Tencent Hunyuan Team"),
    ("survey-agentic-rl", "affiliation"): ("unknown", "National University of Singapore"),
    ("survey-mas", "affiliation"): ("unknown", "Harbin Institute of Technology"),
    # round two, evidence for every reward family and credit unit: tags the abstract read
    # contradicts (each entry's notes quote the phrase)
    ("ippo2020", "reward_type"): ("individual", "shared"),
    ("marsrl", "reward_type"): ("hybrid", "role"),
    ("marsrl", "credit_granularity"): ("turn", "agent"),
    ("spiral2026", "reward_type"): ("hybrid", "individual"),
}

# The snapshot's exclusions decided again since (claims.yaml's corrections move each, with the
# flow's stage it left at): exclusion id -> the entry it is now.
REDECIDED = {"E031": "agent-smith2024"}


def papers(corpus: Corpus) -> dict[str, dict[str, object]]:
    """The snapshot's entries, as the reference pool holds them (later ones are not in it)."""
    return {r.stem: r.data for r in corpus.of("paper") if str(r.data.get("added")) <= SNAPSHOT}


def pool_value(key: str, field: str, value: object) -> object:
    """VALUE as the pool had it: an audited correction undone."""
    was, now = AUDITED.get((key, field), (None, None))
    return was if now is not None and value == now else value


def test_audited_corrections_are_in_place(corpus: Corpus) -> None:
    data = {r.stem: r.data for r in corpus.of("paper")}
    assert {k: data[e][f] for (e, f), (_, now) in AUDITED.items() for k in [(e, f)]} == {
        k: now for k, (_, now) in AUDITED.items()
    }


def test_shipped_corpus_is_clean() -> None:
    report = check(REPO, strict=True)
    assert report.ok, report.to_text()


def test_same_records_as_reference(corpus: Corpus, reference: dict, excluded: dict) -> None:
    assert set(papers(corpus)) == set(reference)
    snapshot = {r.stem for r in corpus.of("exclusion") if str(r.data["added"]) <= SNAPSHOT}
    assert snapshot | set(REDECIDED) == set(excluded) and not snapshot & set(REDECIDED)
    retained = {r.stem: r.data for r in corpus.of("paper")}
    for record, key in REDECIDED.items():  # the work the pool excluded, its notes saying so
        assert retained[key]["url"] == excluded[record]["url"].split(";")[0].strip(), record
        assert f"This record was exclusion {record}" in str(retained[key]["notes"])


@pytest.mark.parametrize("axis", REFERENCE_AXES)
def test_counts_per_axis_equal_reference(corpus: Corpus, reference: dict, axis: str) -> None:
    ours = Counter(str(pool_value(k, axis, d[axis])) for k, d in papers(corpus).items())
    theirs = Counter(row[axis] for row in reference.values())
    assert ours == theirs


def test_every_tag_equals_reference(corpus: Corpus, reference: dict) -> None:
    diffs = [
        (k, a, d[a], reference[k][a])
        for k, d in papers(corpus).items()
        for a in REFERENCE_AXES
        if pool_value(k, a, d[a]) != reference[k][a]
    ]
    assert diffs == []


def test_bibliographic_facts_carried_over(corpus: Corpus, reference: dict) -> None:
    for key, d in papers(corpus).items():
        ref = reference[key]
        assert d["year"] == int(ref["year"]), key
        assert pool_value(key, "venue", d["venue"]) == ref["venue"], key
        assert pool_value(key, "affiliation", d["affiliation"]) == ref["affiliation"], key
        assert d["url"] == ref["url"].split(";")[0].strip(), key
        if ref["arxiv_id"]:
            assert d["ids"]["arxiv"] == ref["arxiv_id"], key  # type: ignore[index]


def test_exclusion_facts_carried_over(corpus: Corpus, excluded: dict) -> None:
    for rec in corpus.of("exclusion"):
        if str(rec.data["added"]) > SNAPSHOT:
            continue  # screened since: not in the pool
        ref, d = excluded[rec.stem], rec.data
        assert d["title"] == ref["screening_label"]
        assert d["url"] == ref["url"]
        assert d["stage"] == ref["stage"]
        assert d["date_screened"] == ref["date_screened"]
        ident = d.get("identifier") or ":".join(next(iter(d["ids"].items())))
        assert ident.lower() == ref["identifier"].lower().replace("acl:", "acl:"), rec.stem


@pytest.fixture(scope="module")
def sentence_grams() -> dict[tuple[str, str], set[str]]:
    """Hashed word 3- and 5-grams of the pool's sentences, by (record, n)."""
    grams: dict[tuple[str, str], set[str]] = {}
    with open(REFERENCE / "sentence-grams.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            grams.setdefault((row["record"], row["n"]), set()).add(row["sha256"])
    return grams


def _copied(ours: str, record: str, grams: dict[tuple[str, str], set[str]]) -> bool:
    """True when OURS shares a five-word run with the pool's sentences on RECORD, or half of
    its three-word runs (a light rewording)."""
    mine = hashed_grams(ours, 3)
    shared3 = len(mine & grams.get((record, "3"), set()))
    return bool(hashed_grams(ours, 5) & grams.get((record, "5"), set())) or (
        bool(mine) and shared3 / len(mine) >= 0.5
    )


def test_own_words_check_catches_copies() -> None:
    """The check itself, on a made-up pool sentence: a copy and a light rewording are caught."""
    pool = "Trains a planner agent with group relative rewards for parallel web search"
    grams = {("x", str(n)): hashed_grams(pool, n) for n in (3, 5)}
    assert _copied("It trains a planner agent with group relative rewards.", "x", grams)
    assert _copied("Train planner agent with group relative rewards, parallel search", "x", grams)
    assert not _copied("A planner learns to split web searches into parallel calls.", "x", grams)


def test_summaries_are_our_own_words(corpus: Corpus, sentence_grams: dict) -> None:
    """A summary is one sentence and no copy or light rewording of the reference text."""
    for key, d in papers(corpus).items():
        summary = str(d["summary"])
        assert summary.endswith(".") and not re.search(r"\w{3,}\. [A-Z]", summary), key
        assert not _copied(summary, key, sentence_grams), key
    for rec in corpus.of("exclusion"):
        note = str(rec.data["note"])
        assert note.endswith("."), rec.stem
        assert not _copied(note, rec.stem, sentence_grams), rec.stem


# The survey's sub-decision figure (assets/orchestration_subdecisions.svg of the artifact).
FIGURE_ANCHORS = {
    ("kimi-k2-5", "spawn"),
    ("agentspawn", "spawn"),
    ("halo", "spawn"),
    ("puppeteer", "delegate"),
    ("paramanager", "delegate"),
    ("debate-as-reward", "communicate"),
    ("latentmas", "communicate"),
    ("m-grpo", "aggregate"),
    ("context-folding", "aggregate"),
}
O_AXES = ("orchestration_decisions", "orchestration_designed")


def test_orchestration_anchors_and_provenance(corpus: Corpus) -> None:
    """Every O-tag has an evidence item; survey_figure marks exactly the figure's anchors."""
    data = papers(corpus)
    for key, decision in FIGURE_ANCHORS:
        assert any(decision in (data[key].get(a) or []) for a in O_AXES), key
    sourced = set()
    for key, d in data.items():
        tagged = {v for a in O_AXES for v in d.get(a) or []}
        evidence = d.get("orchestration_evidence") or {}
        assert set(evidence) == tagged, key
        assert not set(d.get("orchestration_decisions") or []) & set(
            d.get("orchestration_designed") or []
        ), f"{key}: a sub-decision is either learned or designed"
        for decision, item in evidence.items():
            assert item["source"] in ("survey_figure", "curator"), key
            assert 0 < len(item["quote"].split()) <= 25, f"{key}: quote of at most 25 words"
            assert item["where"].strip(), key
            if item["source"] == "survey_figure":
                sourced.add((key, decision))
    assert sourced == FIGURE_ANCHORS


def test_learned_orchestration_needs_learning_or_optimisation(corpus: Corpus) -> None:
    """No O-tag in orchestration_decisions on an entry that neither learns nor optimizes
    (is_rl no: no training and no search); such mechanisms go in orchestration_designed."""
    untrained = [
        k
        for k, d in papers(corpus).items()
        if d["is_rl"] == "no" and d.get("orchestration_decisions")
    ]
    assert untrained == []


def test_no_rl_trained_entry_learns_to_stop(corpus: Corpus) -> None:
    trained = [
        k
        for k, d in papers(corpus).items()
        if d["is_rl"] == "yes" and "stop" in (d.get("orchestration_decisions") or [])
    ]
    assert trained == []


def test_benchmarks_and_exclusions_are_coded(corpus: Corpus, snapshot: Corpus) -> None:
    benchmarks = [d for d in papers(corpus).values() if d["category"] == "benchmark"]
    assert len(benchmarks) == 18
    assert all(d.get("benchmark_measures") for d in benchmarks)
    assert all(
        set(d["benchmark_measures"]) != {"E1", "E2", "E3", "E4"}  # type: ignore[arg-type]
        for d in benchmarks
    )
    for d in benchmarks:  # partial coverage: a dimension is full or partial, and never E1-E4
        full, part = set(d["benchmark_measures"]), set(d.get("benchmark_measures_partial") or [])
        assert not full & part and full | part != {"E1", "E2", "E3", "E4"}, d["key"]
    reasons = Counter(str(r.data["reason"]) for r in snapshot.of("exclusion"))
    assert sum(reasons.values()) == 32 - len(REDECIDED) and len(reasons) >= 8
    assert all(r.data.get("reason") for r in corpus.of("exclusion"))


def test_files_are_quoted_for_other_yaml_readers(corpus: Corpus) -> None:
    """No shipped scalar relies on YAML's implicit typing (other tools would retype it)."""
    for rec in corpus:
        retyped = {
            p: v
            for p, v in rec.doc.implicit.items()
            if v[0] not in ("int",) and p[0] != "date_screened"
        }
        assert retyped == {}, rec.path


def test_credit_strictness_follows_the_second_reader(corpus: Corpus) -> None:
    """Where the second reader judged strict explicit credit, the corpus agrees with it."""
    data = papers(corpus)
    with open(REPO / "reviews" / "second-reader.csv", encoding="utf-8") as f:
        judged = {row["key"]: row["strict_explicit_credit"] for row in csv.DictReader(f)}
    for key, strict in judged.items():
        expected = {"yes": "strict", "no": "broad"}[strict]
        found = pool_value(key, "credit_strictness", data[key].get("credit_strictness", "broad"))
        assert found == expected, key


def reader(corpus: Corpus) -> dict[str, Any]:
    out = reader_tables(corpus)
    assert out is not None
    return out


def litcorpus(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args], capture_output=True, text=True, timeout=120
    )


def test_shipped_taxonomy_loads_clean() -> None:
    tax, problems = load_taxonomy(REPO)
    assert problems == []
    assert tax.axes_for("paper") and tax.axes_for("exclusion")


def test_survey_codes() -> None:
    tax, _ = load_taxonomy(REPO)
    reward = tax.axes["reward_type"]
    assert sorted(reward.families) == [f"R{i}" for i in range(1, 9)]
    assert {v.family for v in reward.values if v.family} == set(reward.families)
    assert reward.code_of("debate") == reward.code_of("verifier") == "R6"
    assert [
        tax.axes["orchestration_decisions"].code_of(v)
        for v in ("spawn", "delegate", "communicate", "aggregate", "stop")
    ] == ["O1", "O2", "O3", "O4", "O5"]
    assert tax.axes["credit_granularity"].current_ids == [
        "token",
        "tool",
        "message",
        "turn",
        "agent",
        "role",
        "orchestrator",
        "team",
        "NA",
    ]
    assert tax.axes["orchestration_decisions"].multi
    assert tax.axes["stage"].current_ids[0] == "duplicate_screen"


def test_shipped_anchors_match_the_survey_figure(snapshot: Corpus) -> None:
    # Facts read by hand from the survey artifact's sub-decision figure
    # (xxzcc/awesome-llm-mas-rl, assets/orchestration_subdecisions.svg at a14d8de): O1 Kimi
    # PARL, AgentSpawn, HALO; O2 Puppeteer, ParaManager; O3 Debate-as-Reward, LatentMAS;
    # O4 M-GRPO, Context-Folding; O5 "no published training method".
    sub = {row["value"]: row for row in reader(snapshot)["subdecisions"]["rows"]}
    anchors = {v: {a["key"] for a in row["anchors"]} for v, row in sub.items()}
    assert anchors == {
        "spawn": {"kimi-k2-5", "agentspawn", "halo"},
        "delegate": {"puppeteer", "paramanager"},
        "communicate": {"debate-as-reward", "latentmas"},
        "aggregate": {"m-grpo", "context-folding"},
        "stop": set(),
    }
    assert sub["stop"]["learned"] == 0


def test_shipped_benchmark_table_names_the_multi_agent_native_benchmarks(
    snapshot: Corpus,
) -> None:
    rows = reader(snapshot)["benchmarks"]["rows"]
    native = {row["key"] for row in rows if row["multiagent"] == "native"}
    assert native == {"multiagentbench2025", "tamas", "tmcht2025", "agents-under-siege2025"}
    assert all(row["multiagent"] for row in rows)  # every benchmark is tagged
    gaia = next(row for row in rows if row["key"] == "gaia2023")
    assert gaia["measures"] == [["E1"], ["E2"]]


def test_shipped_readme_links_committed_concept_figures() -> None:
    readme = (REPO / "README.md").read_text()
    for figure in ("topologies", "credit", "subdecisions"):
        assert f"](stats/figures/concept-{figure}.svg)" in readme
        assert (REPO / "stats" / "figures" / f"concept-{figure}.svg").is_file()


def test_shipped_stats_are_current() -> None:
    result = litcorpus("stats", "--root", str(REPO), "--check")
    assert result.returncode == 0, result.stdout


def test_shipped_readme_is_current() -> None:
    result = litcorpus("readme", "--check", "--root", str(REPO))
    assert result.returncode == 0, result.stdout + result.stderr


def test_shipped_readme_says_which_findings_moved() -> None:
    """The survey's stop finding held at its snapshot; the list says since when it does not."""
    findings = next(line for line in (REPO / "README.md").open() if line.startswith("**Findings"))
    stop = next(p for p in findings.split("; ") if "learns when to stop" in p)
    assert (
        "\U0001f7e2 **Held at 2026.05**, \U0001f7e0 **No longer holds** since 2026-05-09 "
        "(first: `fang2026critique`)" in stop
    )
    assert "benchmark measures task outcome" not in findings  # E1-E4 still holds


def test_each_releases_update_flow_adds_up(corpus: Corpus) -> None:
    """In every release's update flow, each arm's records found, less those removed, set
    aside, not retrieved or awaiting, and with those of earlier searches screened only now,
    are the records it screened; and the new studies are what the arms include."""
    searches = load_searches(
        REPO, None, corpus.taxonomy.views.screening.axes.get("family_axis", "")
    )
    queue = load_queue(REPO, corpus.taxonomy)
    releases = corpus.releases.items
    carried = 0
    for before, release in itertools.pairwise(releases):
        flow = update_flow(corpus.at(release), searches, before, queue)
        assert flow is not None
        for arm in (flow["searches"], flow["other"]):
            gone = arm["duplicates"] + arm["unscreenable"] + arm["automation"]
            waiting = arm["not_retrieved"] + arm["awaiting"]
            screened = arm["stages"][0]["assessed"]
            assert arm["identified"] - gone - waiting + arm["carried"] == screened, release
            carried += arm["carried"]
        assert flow["new_studies"] == flow["searches"]["included"] + flow["other"]["included"]
    assert carried > 0  # the maybes of 2026.12 and the records decided again since
