"""`litcorpus init DIR`: a new survey that builds from its first `make`. It writes a small
taxonomy whose comments explain each block (which are required, what each optional one turns
on), one example entry, a README with the list markers, CONTRIBUTING, CITATION.cff, a Makefile
(`make` builds stats/, the list and site/; `make test` runs the corpus's checks), the CI and
Pages workflows and the site's pinned npm package. The files are package data
(workflow/skeleton); @NAME@, @TOOLKIT@ and @TODAY@ are filled in. Nothing is written unless
every file can be, and no existing file is ever replaced.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from importlib import metadata, resources
from importlib.resources.abc import Traversable
from pathlib import Path

from surewrite.errors import OutputError
from surewrite.files import write_new_files

from ..model.errors import CommandError

# skeleton path: the path it is written to (package data keeps no dot-files)
RENAMED = {"gitignore": ".gitignore", "github": ".github"}
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,79}")
DISTRIBUTIONS = ("surewrite", "litcorpus")  # the toolkit, and the library it writes with


def _spec(distribution: str) -> str:
    """Where DISTRIBUTION was installed from (a path, a git address at its commit, with its
    subdirectory), else its name."""
    try:
        raw = metadata.distribution(distribution).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        raw = None
    info = json.loads(raw) if raw else {}
    url = str(info.get("url", ""))
    vcs = info.get("vcs_info") or {}
    if url.startswith("file://"):
        return url[len("file://") :]
    if vcs.get("vcs") == "git" and url:
        at = f"@{vcs['commit_id']}" if vcs.get("commit_id") else ""
        sub = f"#subdirectory={info['subdirectory']}" if info.get("subdirectory") else ""
        return f"git+{url}{at}{sub}"
    return distribution


def toolkit_spec() -> str:
    """What a new survey's Makefile installs the toolkit from: where this one came from (a
    checkout's paths, git addresses at their commit), else the distributions' names."""
    return " ".join(_spec(d) for d in DISTRIBUTIONS)


def skeleton_files(name: str, toolkit: str, today: dt.date) -> dict[str, bytes]:
    """{relative path: bytes} of the new survey."""
    base = resources.files("litcorpus.workflow") / "skeleton"
    out: dict[str, bytes] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for item in sorted(folder.iterdir(), key=lambda f: f.name):
            rel = prefix + (item.name if prefix else RENAMED.get(item.name, item.name))
            if item.is_dir():
                walk(item, rel + "/")
            else:
                text = item.read_text(encoding="utf-8")
                for key, value in (("@NAME@", name), ("@TOOLKIT@", toolkit),
                                   ("@TODAY@", today.isoformat())):  # fmt: skip
                    text = text.replace(key, value)
                out[rel] = text.encode()

    walk(base, "")
    return out


def init_survey(target: Path, name: str | None = None, today: dt.date | None = None) -> list[str]:
    """Write a new survey into TARGET (absent or empty), named NAME (default: the folder's
    name); returns the paths written, relative to TARGET."""
    name = name if name is not None else target.resolve().name
    if not NAME.fullmatch(name):
        raise CommandError(
            "init-refused",
            f"'{name}' cannot name a survey",
            "use letters, digits, spaces, '.', '_' or '-' (at most 80), e.g. --name code-agents-rl",
            usage=True,
        )
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise CommandError(
            "init-refused",
            f"{target} is not an empty folder; nothing was written",
            "give a new or empty folder",
        )
    files = skeleton_files(name, toolkit_spec(), today or dt.date.today())
    created_target = not target.exists()
    try:
        for rel in files:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
        write_new_files({target / rel: data for rel, data in files.items()},
                        target / ".litcorpus.journal")  # fmt: skip
    except (OSError, OutputError) as exc:
        _remove_empty(target, created_target)
        if isinstance(exc, OutputError):
            raise
        raise CommandError("system-error", f"cannot write {target}: {exc.strerror}") from exc
    return sorted(files)


def _remove_empty(target: Path, created_target: bool) -> None:
    """The folders a refused init made, when they hold nothing."""
    if not target.is_dir():
        return
    for folder in sorted((p for p in target.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    if created_target and not any(target.iterdir()):
        target.rmdir()
