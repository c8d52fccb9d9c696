"""Another survey starts from the toolkit: a taxonomy of two axes and none of the blocks this
corpus declares (gap tables, scale, trend, screening flow, claims, releases, site words) is
checked, counted and published without a traceback, and nothing published names this survey."""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path

import pytest

from corpusfixtures import FIXTURES, THIS_SURVEY
from litcorpus.analysis.result import analyse, check
from litcorpus.model.corpus import load_corpus
from litcorpus.publish.site import site_files
from litcorpus.publish.statsdir import stats_files


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    root = tmp_path / "code-agents-rl"
    shutil.copytree(FIXTURES / "survey2", root)
    return root


def test_a_two_axis_survey_is_counted_and_published_in_its_own_words(survey: Path) -> None:
    assert check(survey, strict=True).ok
    result = analyse(load_corpus(survey))
    stats = stats_files(result)
    site = dict(site_files(result, stats_files=stats))
    readme = stats["README.md"].decode()
    assert "## Counts" in readme and "## Coverage gaps" not in readme and "## Claims" not in readme
    assert not any(name.startswith("tables/claims") for name in stats)
    # pages only for what it declares: no gap map, claims, screening flow or trace schema
    pages = {p for p in site if p.endswith(".html") and "/" not in p}
    assert pages == {"index.html", "stats.html", "taxonomy.html", "changes.html"}
    for path, data in site.items():
        if path.endswith((".html", ".xml", ".js", ".css", ".md", ".bib", ".json")):
            text = data.decode("utf-8")
            assert not THIS_SURVEY.search(text), (path, THIS_SURVEY.search(text))
            for href in re.findall(r'href="([^"#?:]+\.html)', text):
                assert posixpath.normpath(posixpath.join(posixpath.dirname(path), href)) in site
    index = site["index.html"].decode()
    assert "<title>Papers · code-agents-rl</title>" in index and "<h1>code-agents-rl</h1>" in index
    assert "tagged by" not in index  # no headline axes declared
    assert "<title>code-agents-rl: new entries and releases</title>" in site["feed.xml"].decode()
