"""`litcorpus build`, what `make` runs: the corpus is read, checked and analysed once, and
stats/, the README list and site/ are published from that one result.

When nothing that goes into them changed since the last build (the corpus's files, the
README's hand-written part, the toolkit's own code and the libraries that draw and render)
and every output is as that build left it, whole, the build only says so. The record of the
last build is kept in the cache folder (publish.outputs.cache_dir).

A build holds the corpus lock for its whole run: builds (and add, readme, release) take turns,
and a build that waited finds the one before it did its work. Every output is checked before
any is written (the folders may be replaced, README.md has its markers, nothing is read-only),
so a refused output costs no other.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from ..model.corpus import CORPUS_FILES
from ..model.problems import Report
from ..progress import Progress
from ..publish.outputs import INPUT_FOLDERS as OTHER_INPUTS
from ..publish.outputs import TOOL, cache_dir

PACKAGES = ("litcorpus", "surewrite", "orchtrace")  # the code whose change changes the outputs
LIBRARIES = ("matplotlib", "jinja2", "pandas", "pylatexenc", "bibtexparser")
INPUT_FILES = (*CORPUS_FILES, "README.md", "CITATION.cff", "package-lock.json")
INPUT_FOLDERS = ("papers", "exclusions", *OTHER_INPUTS)
OUTPUTS = ("stats", "site")


@dataclass(slots=True)
class Built:
    up_to_date: bool = False
    report: Report | None = None  # the problems that stopped the build, when it stopped
    broken: list[str] = field(default_factory=list)  # claims that do not hold at their release
    written: dict[str, int] = field(default_factory=dict)  # output: files changed
    readme: bool = False  # whether README.md changed


def _files(root: Path) -> Iterable[Path]:
    for name in INPUT_FILES:
        yield root / name
    for folder in INPUT_FOLDERS:
        base = root / folder
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*") if p.is_file())


def _own_text(data: bytes) -> bytes:
    """README.md without the list the build writes into it: only its own text is an input."""
    from ..publish.readme import BEGIN, END

    head, begin, rest = data.partition(BEGIN.encode())
    return head + rest.partition(END.encode())[2] if begin else data


def fingerprint(root: Path) -> str:
    """A hash of everything a build reads: the inputs, the code, the libraries' versions."""
    digest = hashlib.sha256()
    for path in _files(root):
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\0absent"
        if path.name == "README.md":
            data = _own_text(data)
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + data + b"\0")
    for package in PACKAGES:
        try:
            module = sys.modules.get(package) or __import__(package)
        except ImportError:  # orchtrace is optional (the traces extra)
            digest.update(f"{package} absent\0".encode())
            continue
        base = Path(module.__file__ or "").parent
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(base).as_posix().encode() + path.read_bytes())
    for library in LIBRARIES:
        digest.update(f"{library}={metadata.version(library)}\0".encode())
    return digest.hexdigest()


def _outputs_state(root: Path) -> dict[str, list[int]]:
    """Size and modification time of every output file, to tell that none was touched."""
    state: dict[str, list[int]] = {}
    paths = [root / "README.md"]
    for name in OUTPUTS:
        for dirpath, _, filenames in os.walk(root / name):
            paths += [Path(dirpath) / f for f in filenames]
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            continue
        state[path.relative_to(root).as_posix()] = [info.st_size, info.st_mtime_ns]
    return state


def _stamp_file(root: Path) -> Path:
    name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return cache_dir(root, "build") / f"{name}.json"


def up_to_date(root: Path) -> tuple[bool, str]:
    """Whether the last build's outputs stand as they are, whole; and the inputs' fingerprint."""
    from surewrite.tree import whole

    print_ = fingerprint(root)
    try:
        stamp = json.loads(_stamp_file(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, print_
    same = (
        isinstance(stamp, dict)
        and stamp.get("fingerprint") == print_
        and stamp.get("outputs") == _outputs_state(root)
        and all(whole(root / name, TOOL, name) for name in OUTPUTS)
    )
    return same, print_


def _remember(root: Path, print_: str) -> None:
    """Record the build; a cache that cannot be written only costs the next build time."""
    from surewrite.errors import OutputError
    from surewrite.files import write_file

    stamp = {"fingerprint": print_, "outputs": _outputs_state(root)}
    try:
        _stamp_file(root).parent.mkdir(parents=True, exist_ok=True)
        write_file(_stamp_file(root), json.dumps(stamp).encode())
    except (OSError, OutputError):
        pass


def build(root: Path, progress: Progress | None = None, force: bool = False) -> Built:
    """Check the corpus below ROOT strictly and write stats/, README.md's list and site/ from
    one analysis; nothing is written when the corpus has problems, a claim is broken or an
    output is refused."""
    from ..publish.outputs import BUILD_WAIT, corpus_lock

    with corpus_lock(root, BUILD_WAIT):
        return _build(root, progress, force)


def _build(root: Path, progress: Progress | None, force: bool) -> Built:
    same, print_ = up_to_date(root)
    if same and not force:
        return Built(up_to_date=True)
    from surewrite.files import write_file
    from surewrite.paths import check_writable
    from surewrite.tree import check_tree

    from ..analysis.result import analyse
    from ..model.corpus import load_corpus
    from ..publish import outputs, readme, site, statsdir
    from ..publish.vendor import vendored

    vendored(root)  # a missing script stops the build before it writes anything

    result = analyse(load_corpus(root, progress), strict=True, progress=progress)
    if not result.report.ok:
        return Built(report=result.report)
    broken = [c.claim.id for c in result.claims if not c.held]
    if broken:
        return Built(broken=broken)
    corpus = result.corpus
    corpus.forget_positions()
    keep, no_inside = outputs.keep(corpus), outputs.input_folders(corpus)
    for name in OUTPUTS:  # every output is checked before any is written
        check_tree(root / name, TOOL, name, keep, no_inside)
    readme_path = root / "README.md"
    current, new_readme = readme.readme_text(corpus, readme_path, result.claims)
    if new_readme != current:
        check_writable(readme_path.parent)
        check_writable(readme_path)
    files = statsdir.stats_files(result)
    built = Built()
    built.written["stats"] = statsdir.write_stats(result, root / "stats", progress, files)
    with _written_before("stats/ was written"):
        if new_readme != current:
            write_file(readme_path, new_readme.encode(), clean=True)
            built.readme = True
    with _written_before("stats/ and README.md were written"):
        built.written["site"] = site.write_site(result, root / "site", progress, files)[1]
    _remember(root, print_)
    return built


@contextmanager
def _written_before(done: str) -> Iterator[None]:
    """A write that fails (a full disk) after DONE were written says so: they stand, whole."""
    from surewrite.errors import OutputError

    try:
        yield
    except OutputError as exc:
        raise OutputError(
            exc.code, f"{exc.message} ({done}; run the build again)", exc.hint
        ) from exc
