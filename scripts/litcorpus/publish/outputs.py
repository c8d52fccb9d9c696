"""What litcorpus's outputs may never replace, write into or overwrite: the repository root,
its record folders and .git (see safewrite.paths), and the files a run reads."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from safewrite.files import locked, recover_new_files

from ..model.corpus import Corpus
from ..model.taxonomy import TAXONOMY_FILE

TOOL = "litcorpus"
LOCK_FILE = ".litcorpus.lock"  # held by the runs that write into the corpus (add, readme)
JOURNAL = ".litcorpus.journal"  # what an add is placing, until it is done
# Files at the root that the corpus reads or the tool maintains in place.
ROOT_FILES = (TAXONOMY_FILE, "claims.yaml", "README.md", "CITATION.cff", "CHANGELOG.md")


def cache_dir(root: Path, name: str) -> Path:
    """Where drawn figures and other reusable work are kept: LITCORPUS_CACHE, or .cache/
    below the root (git-ignored)."""
    base = os.environ.get("LITCORPUS_CACHE")
    return (Path(base) if base else root / ".cache" / "litcorpus") / name


def record_folders(corpus: Corpus) -> list[Path]:
    return [corpus.root / kind.dir for kind in corpus.taxonomy.kinds.values()]


def keep(corpus: Corpus) -> list[Path]:
    """Folders an output folder may neither be nor hold."""
    return [corpus.root, *record_folders(corpus), corpus.root / ".git"]


def inputs(corpus: Corpus) -> list[Path]:
    """Files an output file may not be."""
    return [corpus.root / name for name in ROOT_FILES] + [corpus.root / r.path for r in corpus]


@contextmanager
def corpus_lock(root: Path) -> Iterator[None]:
    """Hold the corpus's lock; a run killed while adding entries is undone first."""
    with locked(root / LOCK_FILE):
        recover_new_files(root / JOURNAL)
        yield
