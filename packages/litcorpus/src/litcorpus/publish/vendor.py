"""The third-party scripts the site ships, installed from npm and copied into site/assets at
build time, never committed: MiniSearch (MIT), pinned in the repository's package.json and
package-lock.json, which `make` installs with `npm ci`.

Reads node_modules/ of the corpus root, else of the toolkit's own checkout (the corpus at
--root DIR may be anywhere); returns {site path: bytes}, the package's licence beside it.
"""

from __future__ import annotations

from pathlib import Path

from ..model.errors import CommandError

# site path: (package, file inside it); the UMD build runs from file:// (no module loader)
SCRIPTS = {
    "assets/minisearch.js": ("minisearch", "dist/umd/index.js"),
    "assets/minisearch.LICENSE.txt": ("minisearch", "LICENSE.txt"),
}
# the toolkit's own checkout, when litcorpus runs from one (packages/litcorpus/src/litcorpus/...)
_UP = Path(__file__).resolve().parents
CHECKOUT = _UP[5] if (_UP[3] / "pyproject.toml").is_file() and _UP[4].name == "packages" else None


def _find(package: str, root: Path) -> Path | None:
    for base in (root, CHECKOUT) if CHECKOUT else (root,):
        folder = base / "node_modules" / package
        if (folder / "package.json").is_file():
            return folder
    return None


def vendored(root: Path) -> dict[str, bytes]:
    """The shipped scripts' files; CommandError site-dependency-missing when one is absent."""
    out = {}
    for path, (package, inside) in SCRIPTS.items():
        folder = _find(package, root)
        file = folder / inside if folder else None
        if file is None or not file.is_file():
            raise CommandError(
                "site-dependency-missing",
                f"{package} is not installed (node_modules/{package}/{inside})",
                "run `make`, or `npm ci` in the repository",
            )
        out[path] = file.read_bytes()
    return out
