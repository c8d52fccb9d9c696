"""`litcorpus init DIR`, as another survey team starts: the new folder builds with `make`, its
`make test` runs its checks (and fails on a bad entry), a release is cited by the survey's own
name, and nothing it publishes names this corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from corpusfixtures import THIS_SURVEY

LITCORPUS = Path(sys.executable).parent / "litcorpus"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)


def make(folder: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """make in FOLDER with this environment's toolkit, and npm from its cache (no network)."""
    return run("make", *targets, f"LITCORPUS={LITCORPUS}", "NPM_FLAGS=--offline", cwd=folder)


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("teams") / "code-agents-rl"
    done = run(str(LITCORPUS), "init", str(folder), cwd=folder.parent)
    assert done.returncode == 0, done.stderr
    return folder


def test_init_writes_a_survey_that_builds_and_checks_itself(survey: Path) -> None:
    names = {p.relative_to(survey).as_posix() for p in survey.rglob("*") if p.is_file()}
    assert {"taxonomy.yaml", "README.md", "CONTRIBUTING.md", "CITATION.cff", "Makefile",
            ".github/workflows/ci.yml", ".github/workflows/pages.yml",
            "papers/vaswani2017attention.yaml"} <= names  # fmt: skip
    taxonomy = (survey / "taxonomy.yaml").read_text()
    assert "Required: version, id_schemes, kinds" in taxonomy and "stats:" not in taxonomy.split(
        "version:")[1]  # fmt: skip
    built = make(survey)
    assert built.returncode == 0, built.stdout + built.stderr
    readme = (survey / "README.md").read_text()
    assert "[Attention Is All You Need](https://arxiv.org/abs/1706.03762)" in readme
    assert (survey / "stats" / "README.md").is_file() and (survey / "site" / "index.html").is_file()
    checked = make(survey, "test")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "stats/ is up to date" in checked.stdout


def test_a_release_is_cited_by_the_surveys_name_and_nothing_names_this_corpus(
    survey: Path,
) -> None:
    released = run(str(LITCORPUS), "release", "2026.12", "--title", "First list", cwd=survey)
    assert released.returncode == 0, released.stderr
    assert make(survey).returncode == 0
    stats_page = (survey / "site" / "stats.html").read_text()
    assert "{code-agents-rl-2026-12," in stats_page
    assert "<title>Statistics · code-agents-rl</title>" in stats_page
    for path in (survey / "site").rglob("*"):
        if path.suffix in (".html", ".xml", ".js", ".bib", ".json", ".md", ".css"):
            found = THIS_SURVEY.search(path.read_text(encoding="utf-8"))
            assert found is None, (path, found)


def test_make_test_fails_on_a_bad_entry(survey: Path) -> None:
    entry = survey / "papers" / "vaswani2017attention.yaml"
    before = entry.read_text()
    entry.write_text(before.replace("evidence: empirical", "evidence: empiric"))
    try:
        failed = make(survey, "test")
        assert failed.returncode != 0
        assert "unknown-value" in failed.stdout and "did you mean 'empirical'" in failed.stdout
    finally:
        entry.write_text(before)


def test_init_refuses_a_folder_with_files_and_a_name_it_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    refused = run(str(LITCORPUS), "init", str(tmp_path), cwd=tmp_path)
    assert refused.returncode == 1 and "init-refused" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    bad = run(str(LITCORPUS), "init", str(tmp_path / "new"), "--name", 'a"b', cwd=tmp_path)
    assert bad.returncode == 2 and not (tmp_path / "new").exists()
