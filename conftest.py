"""For every test in the repository (tests/ and each package's tests/): one figure cache for
the whole run, and no file opened beside the repository. Fixtures and helpers are in each
tests/ folder's own conftest.py."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent
OUTSIDE = str(REPO.parent / "shared")  # the survey's pool beside a checkout; tests/reference
OUTSIDE_READS: list[str] = []  # holds what the tests need of it


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and isinstance(args[0], str | Path) and str(args[0]).startswith(OUTSIDE):
        OUTSIDE_READS.append(str(args[0]))


def pytest_configure(config: pytest.Config) -> None:
    """One figure cache for the whole run, subprocesses included: a figure whose data some
    earlier test already drew is not drawn again (figures.build_figures). A file opened beside
    the repository, in ../shared, fails the test that opened it: a clone with nothing beside it
    must pass."""
    if "LITCORPUS_CACHE" not in os.environ:
        os.environ["LITCORPUS_CACHE"] = tempfile.mkdtemp(prefix="litcorpus-test-cache-")
    sys.addaudithook(_audit)


@pytest.fixture(autouse=True)
def _nothing_read_beside_the_repository() -> Iterator[None]:
    yield
    read, OUTSIDE_READS[:] = OUTSIDE_READS[:], []
    assert not read, f"the test opened files outside the repository: {read[:5]}"


# The longest files first: xdist hands whole files to its workers in this order, so the two
# finish close together.
FIRST = (
    "test_browser.py",
    "test_site_readers.py",
    "test_living.py",
    "test_screening.py",
    "test_bad_commands.py",
    "test_import_faults.py",
    "test_runtable.py",
    "test_interrupts.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: k for k, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable: the rest keep order
