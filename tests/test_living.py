"""A living corpus: papers added after the survey's snapshot leave its claims, its screening
flow and its statistics as they were; releases record what changed; the site shows it.

Runs on a copy of the shipped corpus (its files only), as a contributor's clone would."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import CORPUS_FIXTURES, REPO, edit, pages_of, snapshot_clone
from litcorpus.analysis.result import analyse
from litcorpus.model.corpus import load_corpus

GOOD_BIB = CORPUS_FIXTURES / "bibtex" / "good.bib"
# The shipped corpus as it is: its files and folders (not the screening store's abstracts).
CORPUS_FILES = [
    *("taxonomy.yaml", "claims.yaml", "releases.yaml", "searches.yaml"),
    *("CHANGELOG.md", "CITATION.cff"),  # which record each release
]
CORPUS_FOLDERS = ["papers", "exclusions", "reviews", "traces", "screening"]
# What release 2026.05 reported; the live corpus must go on reproducing it.
# What a contributor fills in after `add` scaffolds an entry (a benchmark, the lightest tags).
TAGS = {
    "category": "benchmark",
    "is_rl": '"no"',
    "reward_type": "NA",
    "credit_granularity": "NA",
    "orchestration_form": "NA",
    "scenario": "general",
    "is_core": "supporting",
    "verified": "partial",
    "benchmark_measures": "[E1]",
    "benchmark_multiagent": "single",
}


def litcorpus(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litcorpus", *args], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """The survey's snapshot, to which the tests add papers and releases."""
    return snapshot_clone(tmp_path, docs=True)


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    """The shipped corpus as it is, every release and addition included."""
    root = tmp_path / "shipped"
    root.mkdir()
    for name in CORPUS_FILES:
        shutil.copy2(REPO / name, root / name)
    for folder in CORPUS_FOLDERS:
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns(".store"))
    return root


def fill(path: Path) -> None:
    """Answer every question the scaffold leaves, as a contributor does."""
    text = path.read_text(encoding="utf-8")
    for axis, value in TAGS.items():
        text = re.sub(rf"^{axis}:.*$", f"{axis}: {value}", text, flags=re.MULTILINE)
    text = re.sub(r"^year:.*$", "year: 2026", text, flags=re.MULTILINE)
    text = re.sub(r"^venue:.*$", "venue: arXiv", text, flags=re.MULTILINE)
    text = re.sub(r"^affiliation:.*$", "affiliation: unknown", text, flags=re.MULTILINE)
    text = re.sub(r"^url:  #.*$", "url: https://example.org/paper", text, flags=re.MULTILINE)
    text = re.sub(r"^summary:.*$", 'summary: "A benchmark of agent teams."', text,
                  flags=re.MULTILINE)  # fmt: skip
    text = re.sub(r"^notes:.*$", 'notes: "Added in a test."', text, flags=re.MULTILINE)
    text = re.sub(r"^(orchestration_decisions|orchestration_designed|benchmark_measures_partial)"
                  r": \[\]\n", "", text, flags=re.MULTILINE)  # fmt: skip
    path.write_text(text, encoding="utf-8")


def add_three(root: Path) -> list[Path]:
    run = litcorpus("add", "--root", str(root), "--bibtex", str(GOOD_BIB))
    assert run.returncode == 0, run.stderr
    return [root / line.split(" ", 1)[1] for line in run.stdout.splitlines() if "wrote" in line]


def test_three_new_papers_leave_the_snapshot_alone(clone: Path) -> None:
    claims_before = (clone / "claims.yaml").read_bytes()
    added = add_three(clone)
    assert len(added) == 3
    report = json.loads(litcorpus("check", "--root", str(clone), "--format", "json").stdout)
    assert {p["path"] for p in report["problems"]} == {
        p.relative_to(clone).as_posix() for p in added
    }, "problems only in the three new files, none in claims.yaml"
    for path in added:
        fill(path)
    run = litcorpus("check", "--root", str(clone), "--strict")
    assert run.returncode == 0, run.stdout
    assert (clone / "claims.yaml").read_bytes() == claims_before
    claims = json.loads(litcorpus("claims", "--root", str(clone), "--format", "json").stdout)
    retained = next(c for c in claims if c["id"] == "retained-count")
    assert (retained["held"], retained["actual"], retained["now"]["actual"]) == (
        True,
        "84 entries",
        "87 entries",
    )


def numbers(stats: dict[str, Any]) -> dict[str, Any]:
    """What a release's statistics must reproduce: counts, cross-tabs, gap cells, claims,
    the flow."""
    return {
        "corpus": {k: v for k, v in stats["corpus"].items() if k != "hash"},
        "counts": stats["counts"],
        "crosstabs": stats["crosstabs"],
        "gaps": stats["gaps"],
        "claims": [(c["id"], c["held"], c["actual"]) for c in stats["claims"]],
        "prisma": stats["prisma"],
        "scale": stats["scale"],
        "trend": stats["trend"],
    }


@pytest.mark.parametrize("version", ["2026.05", "2026.12", "2026.12.1"])
def test_the_live_corpus_reproduces_each_releases_numbers(shipped: Path, version: str) -> None:
    """Every paper added since a release leaves what that release reported as it was."""
    out = shipped.parent / "as-of"
    run = litcorpus("stats", "--root", str(shipped), "--as-of", version, "--out", str(out))
    assert run.returncode == 0, run.stderr
    release = json.loads((out / "stats.json").read_text())
    assert release["version"] == version
    golden = json.loads((REPO / "tests" / "golden" / "releases" / f"{version}.json").read_text())
    assert as_released(numbers(release), golden) == golden
    # its update flow runs from the release before it, though later releases share its day
    versions = [
        r["version"] for r in yaml.safe_load((REPO / "releases.yaml").read_text())["releases"]
    ]
    update = release["prisma_update"]
    before = versions[versions.index(version) - 1] if versions.index(version) else None
    assert (update and update["previous"]["version"]) == before


NEW_AXES = {"credit_estimator"}  # axes added to the taxonomy after release 2026.12.1


def as_released(got: dict[str, Any], golden: dict[str, Any]) -> dict[str, Any]:
    """GOT without the counts of axes the taxonomy gained after the release GOLDEN was made
    (the estimator of strict credit): those are counted now, and everything the release
    reported must stay as it was."""
    got = json.loads(json.dumps(got))
    added = set(got["counts"]) - set(golden["counts"])
    assert added <= NEW_AXES, added
    got["counts"] = {k: v for k, v in got["counts"].items() if k not in added}
    return got


def test_three_new_papers_extend_the_live_statistics(clone: Path) -> None:
    out = clone.parent / "as-of"

    def released() -> dict[str, Any]:
        run = litcorpus("stats", "--root", str(clone), "--as-of", "2026.05", "--out", str(out))
        assert run.returncode == 0, run.stderr
        return numbers(json.loads((out / "stats.json").read_text()))

    before = released()
    for path in add_three(clone):
        fill(path)
    assert released() == before
    assert litcorpus("stats", "--root", str(clone), "--out", str(out)).returncode == 0
    live = json.loads((out / "stats.json").read_text())
    assert live["corpus"]["retained"] == 87 and live["version"] == "2026.05+3"
    update = live["prisma_update"]
    assert (update["previous"]["studies"], update["new_studies"], update["total_studies"]) == (
        84,
        3,
        87,
    )
    assert update["other"]["included"] == 3  # none names a logged search
    template = (out / "prisma2020.csv").read_text().splitlines()
    rows = {line.split(",")[0]: line.rsplit(",", 1)[1] for line in template[1:]}
    assert (rows["previous_studies"], rows["new_studies"], rows["total_studies"]) == (
        "84",
        "3",
        "87",
    )


@pytest.mark.parametrize(
    ("as_of", "says"),
    [
        ("2031.01", "neither a release nor a date"),
        ("1999-01-01", "before the first record"),
        ("2099-01-01", "is in the future"),
        ("2026-W19-1", "neither a release nor a date"),  # Python alone reads an ISO week
        ("20260504", "neither a release nor a date"),  # and the basic form
    ],
)
def test_as_of_that_names_nothing_is_refused(clone: Path, as_of: str, says: str) -> None:
    out = clone.parent / "as-of"
    run = litcorpus("stats", "--root", str(clone), "--as-of", as_of, "--out", str(out))
    assert run.returncode == 1 and "bad-as-of" in run.stderr and says in run.stderr
    assert "Traceback" not in run.stderr and not out.exists()


def test_searches_are_logged_and_counted(clone: Path) -> None:
    added = add_three(clone)
    for path in added:
        fill(path)
    today = dt.date.today().isoformat()
    (clone / "searches.yaml").write_text(
        "searches:\n"
        f"  - {{id: S001, source: arxiv, query: 'multi-agent RL', date_run: '{today}', "
        "records_found: 4, duplicates: 2}\n",
        encoding="utf-8",
    )
    for path in added[:2]:
        path.write_text(path.read_text() + "search: S001\n")
    result = analyse(load_corpus(clone))
    assert result.report.ok, result.report.to_text()
    update = result.update
    assert update is not None
    s, o = update["searches"], update["other"]
    assert (s["identified"], s["duplicates"], s["included"], o["identified"]) == (4, 2, 2, 1)
    added[1].write_text(added[1].read_text().replace("search: S001\n", ""))
    problems = analyse(load_corpus(clone), stats=False).report.problems
    assert [p.code for p in problems] == ["search-mismatch"]
    assert "2 of them duplicates, so 2 were screened; 1 records name it" in problems[0].message


def test_release_records_what_changed(clone: Path) -> None:
    for path in add_three(clone):
        fill(path)
    before = {n: (clone / n).read_bytes() for n in ("releases.yaml", "CHANGELOG.md")}
    run = litcorpus("release", "--root", str(clone), "2026.12", "--title", "First update")
    assert run.returncode == 0, run.stderr
    releases = yaml.safe_load((clone / "releases.yaml").read_text())["releases"]
    assert [r["version"] for r in releases] == ["2026.05", "2026.12"]
    added = releases[1]["changes"]["added"]
    assert sorted(added) == [
        "paper:okkey2026",
        "paper:sparse",
        "paper:weiss2025magrpo",
    ]  # the copy has no git history: what changed is read from the records' dates
    assert releases[1]["changes"]["retags_unknown"] is True
    changelog = (clone / "CHANGELOG.md").read_text()
    assert changelog.index("## 2026.12") < changelog.index("## 2026.05")
    assert "\n\n## 2026.05 " in changelog  # the new section ends before the next heading
    assert "- `paper:sparse`" in changelog
    citation = yaml.safe_load((clone / "CITATION.cff").read_text())
    assert (citation["version"], citation["date-released"]) == (
        "2026.12",
        dt.date.today().isoformat(),
    )
    for name, old in before.items():
        assert (clone / name).read_bytes() != old
    # the release's statistics can be reproduced by its name
    out = clone.parent / "r"
    assert (
        litcorpus("stats", "--root", str(clone), "--as-of", "2026.12", "--out", str(out)).returncode
        == 0
    )
    assert json.loads((out / "stats.json").read_text())["corpus"]["retained"] == 87
    # the live corpus on the release's state shows the release's own flow, not an empty one
    assert litcorpus("stats", "--root", str(clone), "--out", str(out)).returncode == 0
    update = json.loads((out / "stats.json").read_text())["prisma_update"]
    assert (update["previous"]["version"], update["new_studies"]) == ("2026.05", 3)
    # a release made from git history knows its retags and records no retags_unknown
    edit(clone / "releases.yaml", "      retags_unknown: true\n", "")
    changes = pages_of(clone)["changes.html"].decode()
    assert "Added (3)" in changes and "Retags are not listed" not in changes


def test_a_paper_added_on_a_releases_day_after_it_stays_out_of_it(clone: Path) -> None:
    """A release is made on a day, and work goes on that day: what the release lists is what it
    holds, so a paper added after it, the same day, changes none of the release's numbers and
    is new in the live corpus and in the next release."""
    first = add_three(clone)
    for path in first:
        fill(path)
    assert litcorpus("release", "--root", str(clone), "2026.12").returncode == 0
    out = clone.parent / "r"
    assert (
        litcorpus("stats", "--root", str(clone), "--as-of", "2026.12", "--out", str(out)).returncode
        == 0
    )
    before = numbers(json.loads((out / "stats.json").read_text()))
    sparse = next(p for p in first if p.stem == "sparse")  # the one without ids
    later = sparse.with_name("later2026.yaml")
    text = sparse.read_text().replace("key: sparse", "key: later2026")
    text = text.replace("A Note Without Year or Venue", "A Note Written Later That Day")
    url = re.search(r"^url: .*$", text, flags=re.M)
    if url:  # another work: an address of its own (the same one is a shared-address error)
        text = text.replace(url.group(0), "url: https://example.org/later-that-day")
    later.write_text(text)
    assert litcorpus("check", "--root", str(clone), "--strict").returncode == 0
    assert (
        litcorpus("stats", "--root", str(clone), "--as-of", "2026.12", "--out", str(out)).returncode
        == 0
    )
    release = json.loads((out / "stats.json").read_text())
    assert numbers(release) == before and release["corpus"]["retained"] == 87
    assert litcorpus("stats", "--root", str(clone), "--out", str(out)).returncode == 0
    live = json.loads((out / "stats.json").read_text())
    assert (live["version"], live["corpus"]["retained"]) == ("2026.12+1", 88)
    assert live["prisma_update"]["new_studies"] == 1  # counted from 2026.12, not from 2026.05
    run = litcorpus("release", "--root", str(clone), "2026.12.1")
    assert run.returncode == 0, run.stderr
    releases = yaml.safe_load((clone / "releases.yaml").read_text())["releases"]
    assert releases[-1]["changes"]["added"] == ["paper:later2026"]
    # the second release of the day holds what the first listed too, and each is itself
    assert litcorpus("stats", "--root", str(clone), "--out", str(out)).returncode == 0
    live = json.loads((out / "stats.json").read_text())
    assert (live["version"], live["corpus"]["retained"]) == ("2026.12.1", 88)
    assert [(r["version"], r["corpus"]["retained"]) for r in live["releases"]][-2:] == [
        ("2026.12", 87),
        ("2026.12.1", 88),
    ]
    as_of = ("stats", "--root", str(clone), "--as-of", "2026.12", "--out", str(out))
    assert litcorpus(*as_of).returncode == 0
    assert json.loads((out / "stats.json").read_text())["version"] == "2026.12"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["2026.05"], "exists already"),
        (["2026.04"], "not newer than 2026.05"),
        (["2026.12", "--date", "2999-01-01"], "is not a release date"),
        (["next"], "is not a release version"),
        (["2026.13"], "is not a release version"),
        (["2026.99"], "is not a release version"),
        (["2026.12", "--title", "One\n## Injected heading"], "the title holds"),
        (["2026.12", "--title", "Hidden \u202e order"], "the title holds"),
    ],
)
def test_a_release_that_cannot_be_made_writes_nothing(
    clone: Path, args: list[str], says: str
) -> None:
    before = {
        n: (clone / n).read_bytes() for n in ("releases.yaml", "CHANGELOG.md", "CITATION.cff")
    }
    run = litcorpus("release", "--root", str(clone), *args)
    assert run.returncode == 1 and "release-refused" in run.stderr and says in run.stderr
    assert {n: (clone / n).read_bytes() for n in before} == before


@pytest.mark.parametrize("day", ["2026-W49-3", "20261202", "2026-12-2"])
def test_a_release_date_in_another_form_is_a_usage_error(clone: Path, day: str) -> None:
    before = (clone / "releases.yaml").read_bytes()
    run = litcorpus("release", "--root", str(clone), "2026.12", "--date", day)
    assert run.returncode == 2 and f"--date {day} is not a date (YYYY-MM-DD)" in run.stderr
    assert (clone / "releases.yaml").read_bytes() == before


def test_versions_compare_as_numbers(clone: Path) -> None:
    """2026.05.10 comes after 2026.05.9 (as text it would not)."""
    day = ["--date", "2026-05-04"]
    assert litcorpus("release", "--root", str(clone), "2026.05.9", *day).returncode == 0
    run = litcorpus("release", "--root", str(clone), "2026.05.10", *day)
    assert run.returncode == 0, run.stderr
    run = litcorpus("release", "--root", str(clone), "2026.05.8", *day)
    assert run.returncode == 1 and "not newer than 2026.05.10" in run.stderr
    assert litcorpus("check", "--root", str(clone), "--strict").returncode == 0


def test_a_release_title_starts_no_markdown_block(clone: Path) -> None:
    run = litcorpus("release", "--root", str(clone), "2026.12", "--title", "# Not a heading")
    assert run.returncode == 0, run.stderr
    assert "\n\\# Not a heading\n" in (clone / "CHANGELOG.md").read_text()


def test_a_release_of_a_corpus_with_problems_is_refused(clone: Path) -> None:
    add_three(clone)  # scaffolds, not yet filled in
    run = litcorpus("release", "--root", str(clone), "2026.12")
    assert run.returncode == 1 and "problem(s); nothing was written" in run.stderr
    assert "2026.12" not in (clone / "releases.yaml").read_text()


def test_future_added_date_is_refused(clone: Path) -> None:
    path = clone / "papers" / "c3.yaml"
    path.write_text(path.read_text().replace("added: '2026-05-04'", "added: '2999-01-01'"))
    report = json.loads(litcorpus("check", "--root", str(clone), "--format", "json").stdout)
    found = [(p["path"], p["code"], p["field"]) for p in report["problems"]]
    assert ("papers/c3.yaml", "bad-date", "added") in found
    # dated in the future, it is in no release: the snapshot's declared flow says so too
    assert {code for _, code, _ in found} == {"bad-date", "prisma-mismatch"}


def test_the_site_marks_what_is_new_and_lists_the_changes(clone: Path) -> None:
    for path in add_three(clone):
        fill(path)
    out = clone.parent / "site"
    assert litcorpus("site", "--root", str(clone), "--out", str(out)).returncode == 0
    changes = (out / "changes.html").read_text()
    assert 'href="index.html?since=2026.05"' in changes and "3 entries added since" in changes
    assert 'papers/okkey2026.html">Counting Messages in Agent Teams</a>' in changes
    page = (out / "papers" / "okkey2026.html").read_text()
    assert '<span class="new"' in page
    assert '<span class="new"' not in (out / "papers" / "c3.html").read_text()
    entries = (out / "assets" / "entries.js").read_text()
    assert '"releases":[["2026.05","2026-05-04"]]' in entries
