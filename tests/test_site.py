"""`litcorpus site` and `litcorpus readme`: golden HTML of the fixture corpus, safety,
determinism, and the generated README against awesome-lint."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from golden import assert_golden
from litcorpus.corpus import load_corpus
from litcorpus.readme import BEGIN, END, render_readme
from litcorpus.site import build_site, safe_url

PAGES = [
    "index.html",
    "papers/alpha-rl.html",
    "papers/beta-bench.html",
    "taxonomy.html",
    "gaps.html",
    "claims.html",
    "screening.html",
    "traces.html",
    "stats.html",
]


def test_golden_html(mini_site: dict[str, bytes]) -> None:
    assert_golden("site", {p: mini_site[p] for p in PAGES})


def test_site_layout_and_downloads(mini_site: dict[str, bytes]) -> None:
    files = mini_site
    for path in [
        "assets/app.js",
        "assets/style.css",
        "assets/search-index.js",
        "stats/exports/corpus.json",
        "stats/exports/corpus.csv",
        "stats/exports/papers.bib",
        "src/papers/alpha-rl.yaml",
        "stats/figures/gap-orchestration-learning-gap.svg",
        "stats/tables/claims.csv",
        "traces/trace.schema.json",
    ]:
        assert path in files, path
    corpus = json.loads(files["stats/exports/corpus.json"])
    assert [d["key"] for d in corpus] == ["alpha-rl", "beta-bench", "gamma-survey"]
    index = files["index.html"].decode()
    assert index.count('class="entry" data-key=') == 3
    assert "Content-Security-Policy" in index and "'unsafe-inline'" not in index


def test_site_is_deterministic(mini_root: Path, mini_site: dict[str, bytes]) -> None:
    assert build_site(load_corpus(mini_root)) == mini_site


def test_only_http_links_are_rendered() -> None:
    assert safe_url("https://arxiv.org/abs/1") == "https://arxiv.org/abs/1"
    for bad in ["javascript:alert(1)", "data:text/html,x", "//evil.example", "ftp://x.org", None]:
        assert safe_url(bad) is None


def test_markup_in_data_is_escaped(mini_root: Path) -> None:
    alpha = mini_root / "papers/alpha-rl.yaml"
    text = alpha.read_text().replace(
        'summary: "Trains', 'summary: "<script>alert(1)</script> & <b>Trains'
    )
    alpha.write_text(text)
    page = build_site(load_corpus(mini_root))["papers/alpha-rl.html"].decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;Trains" in page


def test_site_command_writes_and_refuses_bad_corpus(mini_root: Path) -> None:
    run = [sys.executable, "-m", "litcorpus", "site", "--root", str(mini_root)]
    assert subprocess.run(run, capture_output=True, timeout=120).returncode == 0
    assert (mini_root / "site/index.html").is_file()
    before = (mini_root / "site/index.html").read_bytes()
    alpha = mini_root / "papers/alpha-rl.yaml"
    alpha.write_text(alpha.read_text().replace("url: https://arxiv", "url: javascript://arxiv"))
    result = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "bad-url" in result.stderr
    assert (mini_root / "site/index.html").read_bytes() == before


def test_readme_block_is_generated(mini_root: Path) -> None:
    current = f"# Awesome X\n\nIntro.\n\n{BEGIN}\n{END}\n\n## Usage\n\nText.\n"
    out = render_readme(load_corpus(mini_root), current)
    assert out.startswith("# Awesome X\n\nIntro.\n\n" + BEGIN)
    assert out.endswith(f"{END}\n\n## Usage\n\nText.\n")
    assert "- [Usage](#usage)" in out and "- [RL method](#rl-method)" in out
    assert (
        "- [Alpha: Learning to Spawn Sub-Agents with Reinforcement Learning]"
        "(https://arxiv.org/abs/2501.00001) - Doe et al., 2025. Trains an orchestrator"
    ) in out
    assert render_readme(load_corpus(mini_root), out) == out


def test_shipped_readme_is_current() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "litcorpus", "readme", "--check", "--root", str(REPO)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


LINT = REPO / "tests" / "awesome" / "lint.mjs"


def awesome_lint(readme: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, "node is required (make test installs the linter with npm)"
    assert (LINT.parent / "node_modules" / "awesome-lint").is_dir(), "run `make test`"
    return subprocess.run(
        [node, str(LINT), str(readme)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=readme.parent,
    )


def test_readme_passes_awesome_lint() -> None:
    result = awesome_lint(REPO / "README.md")
    errors = [
        json.loads(line)
        for line in result.stdout.splitlines()
        if json.loads(line)["severity"] == "error"
    ]
    assert result.returncode == 0 and errors == [], result.stdout + result.stderr


def test_awesome_lint_catches_a_bad_item(tmp_path: Path) -> None:
    """The linter run is real: a malformed item fails it."""
    shutil.copy(REPO / "README.md", tmp_path / "README.md")
    shutil.copy(REPO / "CONTRIBUTING.md", tmp_path / "CONTRIBUTING.md")
    text = (tmp_path / "README.md").read_text()
    first_item = next(
        line
        for line in text.splitlines()
        if line.startswith("- [") and " - " in line and "](http" in line
    )
    (tmp_path / "README.md").write_text(text.replace(first_item, first_item.rstrip("._") + " -"))
    result = awesome_lint(tmp_path / "README.md")
    assert result.returncode == 1
    assert any("list-item" in json.loads(line)["rule"] for line in result.stdout.splitlines())


@pytest.mark.parametrize("page", PAGES)
def test_pages_have_landmarks_and_labels(mini_site: dict[str, bytes], page: str) -> None:
    html = mini_site[page].decode()
    for landmark in ("<header", "<nav aria-label=", '<main id="main"', "<footer", 'lang="en"'):
        assert landmark in html
    if page == "index.html":
        assert html.count('<input type="checkbox"') == html.count("<label><input")
        assert '<label for="q">' in html and '<label for="sort">' in html


def test_paper_pages_name_a_bounded_number_of_related_entries(mini_root: Path) -> None:
    alpha = (mini_root / "papers/alpha-rl.yaml").read_text()
    for i in range(15):
        copy = alpha.replace("key: alpha-rl", f"key: alpha-copy{i:02d}")
        copy = copy.replace("2501.00001", f"2501.200{i:02d}")
        copy = copy.replace("Alpha: Learning to Spawn Sub-Agents", f"Variant {i} on spawning")
        (mini_root / f"papers/alpha-copy{i:02d}.yaml").write_text(copy)
    page = build_site(load_corpus(mini_root))["papers/alpha-rl.html"].decode()
    item = next(li for li in page.split("<li>") if "spawn \u00d7 yes" in li)
    assert item.count('href="../papers/alpha-copy') == 12
    assert 'and <a href="../gaps.html#cell-orchestration-learning-gap-spawn-yes">3 more</a>' in item


def test_incremental_build_leaves_unchanged_pages_alone(mini_root: Path) -> None:
    from litcorpus.site import write_site

    out = mini_root / "site"
    total, written = write_site(load_corpus(mini_root), out)
    assert written == total
    before = {
        p: (out / p).stat().st_ino
        for p in ("papers/alpha-rl.html", "papers/beta-bench.html", "index.html")
    }
    edit_text = (
        (mini_root / "papers/beta-bench.yaml")
        .read_text()
        .replace("Scores agent teams", "Scores teams of agents")
    )
    (mini_root / "papers/beta-bench.yaml").write_text(edit_text)
    total, written = write_site(load_corpus(mini_root), out)
    assert 0 < written < total
    assert (out / "papers/alpha-rl.html").stat().st_ino == before["papers/alpha-rl.html"]
    assert (out / "papers/beta-bench.html").stat().st_ino != before["papers/beta-bench.html"]
    assert "Scores teams of agents" in (out / "index.html").read_text()
